import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, testApp, type TestApp } from '../testing/edge-app.ts';
import type { EdgeApp } from './types.ts';

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

const SECRET_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.very-secret-token-value';

function routes(app: EdgeApp): void {
  app.post('/executions/:id', { config: { authority: { kind: 'scope', scope: 'execution:record' } } }, async (request) => {
    // A route that logs its request and headers carelessly still leaks no credential.
    request.log.info({ req: request, headers: request.headers }, 'handling');
    return { ok: true };
  });
  app.get('/boom', { config: { authority: { kind: 'public' } } }, async (request) => {
    throw new Error(`failed for ${request.headers['x-suite-admin-key'] === undefined ? 'nobody' : 'someone'}`);
  });
}

async function build(accessLog = true): Promise<TestApp> {
  t = await testApp(routes, { accessLog });
  t.verifier.grant(SECRET_TOKEN, { sub: 'agent-1', scope: ['execution:record'] });
  return t;
}

describe('request ids', () => {
  it('echoes a sane incoming x-request-id and logs under it', async () => {
    await build();
    const res = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123.DEF_4' } });
    expect(res.headers['x-request-id']).toBe('abc-123.DEF_4');
    expect(t.logLines().find((l) => l.msg === 'request completed')?.reqId).toBe('abc-123.DEF_4');
  });

  it('generates an id when none is sent, and replaces one that is too long or has odd characters', async () => {
    await build();
    const generated = /^[A-Za-z0-9_-]{12}-[0-9a-z]+$/;
    const first = (await t.app.inject({ url: '/health' })).headers['x-request-id'];
    const second = (await t.app.inject({ url: '/health' })).headers['x-request-id'];
    expect(first).toMatch(generated);
    expect(second).toMatch(generated);
    expect(second).not.toBe(first);
    expect((await t.app.inject({ url: '/health', headers: { 'x-request-id': 'x'.repeat(129) } })).headers['x-request-id']).toMatch(generated);
    expect((await t.app.inject({ url: '/health', headers: { 'x-request-id': 'a b\u0001' } })).headers['x-request-id']).toMatch(generated);
  });

  it('echoes the id on error answers too', async () => {
    await build();
    const res = await t.app.inject({ url: '/nowhere', headers: { 'x-request-id': 'r-404' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-request-id']).toBe('r-404');
    const denied = await t.app.inject({ method: 'POST', url: '/executions/e1', headers: { 'x-request-id': 'r-401' } });
    expect(denied.headers['x-request-id']).toBe('r-401');
  });
});

describe('logs', () => {
  it('writes one access line per request with method, route pattern, status, ms and request id', async () => {
    await build();
    await t.app.inject({ method: 'POST', url: '/executions/e1', headers: { authorization: `Bearer ${SECRET_TOKEN}`, 'x-request-id': 'r1' }, payload: {} });
    await t.app.inject({ url: '/nowhere', headers: { 'x-request-id': 'r2' } });
    const access = t.logLines().filter((l) => l.msg === 'request completed');
    expect(access).toEqual([
      expect.objectContaining({ method: 'POST', route: '/executions/:id', status: 200, reqId: 'r1', service: 'token', ms: expect.any(Number) }),
      expect.objectContaining({ method: 'GET', route: 'unmatched', status: 404, reqId: 'r2' }),
    ]);
  });

  it('writes no access lines when the access log is off', async () => {
    await build(false);
    await t.app.inject({ url: '/health' });
    expect(t.logLines().filter((l) => l.msg === 'request completed')).toEqual([]);
  });

  it('never contains the Authorization header value, the admin key or a request body', async () => {
    await build();
    await t.app.inject({
      method: 'POST',
      url: '/executions/e1',
      headers: { authorization: `Bearer ${SECRET_TOKEN}`, 'x-suite-admin-key': ADMIN_KEY, cookie: 'session=s3cr3t' },
      payload: { input: 'body-marker-do-not-log' },
    });
    await t.app.inject({ url: '/boom', headers: { authorization: `Bearer ${SECRET_TOKEN}`, 'x-suite-admin-key': ADMIN_KEY } });
    const log = t.rawLog();
    expect(log).toContain('handling');
    expect(log).toContain('[redacted]');
    expect(log).not.toContain('very-secret-token-value');
    expect(log).not.toContain(ADMIN_KEY);
    expect(log).not.toContain('s3cr3t');
    expect(log).not.toContain('body-marker-do-not-log');
  });
});
