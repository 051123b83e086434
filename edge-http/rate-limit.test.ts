import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../testing/edge-app.ts';
import type { FastifyRequest } from 'fastify';
import { createRateLimitKeys } from './plugins/rate-limit.ts';
import type { EdgeApp } from './types.ts';

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

function routes(app: EdgeApp): void {
  app.get('/executions', { config: { authority: { kind: 'scope', scope: 'execution:read' } } }, async () => ({ ok: true }));
  app.get('/plans', { config: { authority: { kind: 'public' } } }, async () => ({ plans: [] }));
}

async function build(): Promise<TestApp> {
  t = await testApp(routes, { rateLimit: { max: 2, windowMs: 60_000 } });
  t.verifier.grant('a', { sub: 'a', scope: ['execution:read'] }).grant('b', { sub: 'b', scope: ['execution:read'] });
  return t;
}

const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED in the error shape with Retry-After once the budget is spent', async () => {
    await build();
    // The first request (not yet verified) spends the address's budget, the next two the token's.
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ url: '/executions', headers: as('a') })).statusCode).toBe(200);
    const res = await t.app.inject({ url: '/executions', headers: as('a') });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('60');
    expect(res.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'rate limit exceeded, retry in 1 minute' } });
  });

  it('keeps a separate budget per token', async () => {
    await build();
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/executions', headers: as('a') });
    expect((await t.app.inject({ url: '/executions', headers: as('b') })).statusCode).toBe(200);
  });

  it('limits before the capability check, so a rejected caller cannot hammer the verifier', async () => {
    await build();
    for (let i = 0; i < 2; i++) await t.app.inject({ url: '/executions' });
    expect((await t.app.inject({ url: '/executions' })).statusCode).toBe(429);
    // Two audited denials; the third request never reached the check.
    expect(t.audit.decisions).toHaveLength(2);
  });

  it('counts made-up bearer tokens against the client address, so a fresh random token never buys a fresh budget', async () => {
    await build();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.app.inject({ url: '/executions', headers: as(`x${i}.y.z`) })).statusCode);
    expect(statuses).toEqual([401, 401, 429, 429, 429, 429]);
  });

  it('counts bearer tokens sent to a public route against the client address: they are never verified there', async () => {
    await build();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ url: '/plans', headers: as(`x${i}.y.z`) })).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('gives a verified token its own budget, apart from the client address', async () => {
    await build();
    // The first request of a token is not yet verified: it spends the address's budget.
    expect((await t.app.inject({ url: '/executions', headers: as('a') })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/executions', headers: as('a') })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/executions', headers: as('a') })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/executions', headers: as('a') })).statusCode).toBe(429);
    // The address still has one request left, for anyone not yet verified.
    expect((await t.app.inject({ url: '/plans' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/plans' })).statusCode).toBe(429);
  });

  it('limits public routes by client address', async () => {
    await build();
    for (let i = 0; i < 2; i++) await t.app.inject({ url: '/plans' });
    expect((await t.app.inject({ url: '/plans' })).statusCode).toBe(429);
  });

  it('never limits the operations routes', async () => {
    await build();
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(200);
    }
  });
});

describe('rate-limit key', () => {
  const request = (headers: Record<string, string>) => ({ headers, ip: '10.0.0.7' }) as unknown as FastifyRequest;

  it('keys an admitted token by a hash prefix that does not contain the token, the same every time', () => {
    const keys = createRateLimitKeys();
    keys.admit('token', 'secret-token-a');
    keys.admit('token', 'secret-token-b');
    const a = keys.key(request({ authorization: 'Bearer secret-token-a' }));
    expect(a).toMatch(/^t:[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain('secret');
    expect(keys.key(request({ authorization: 'Bearer secret-token-a' }))).toBe(a);
    expect(keys.key(request({ authorization: 'Bearer secret-token-b' }))).not.toBe(a);
  });

  it('keys a credential not yet admitted by the client address', () => {
    const keys = createRateLimitKeys();
    expect(keys.key(request({ authorization: 'Bearer never-verified' }))).toBe('ip:10.0.0.7');
    expect(keys.key(request({ 'x-suite-admin-key': 'k' }))).toBe('ip:10.0.0.7');
    keys.admit('admin', 'k');
    expect(keys.key(request({ 'x-suite-admin-key': 'k' }))).toMatch(/^a:/);
    expect(keys.key(request({}))).toBe('ip:10.0.0.7');
    expect(keys.key(request({ authorization: 'Basic abc' }))).toBe('ip:10.0.0.7');
  });
});
