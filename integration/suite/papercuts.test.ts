import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call } from '../helpers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 23 part 6 (the papercuts) and issue 25 finding 8 (numbers out of range), each shown through
 * the real listeners. Every one of these answered otherwise before its fix.
 */
let t: TestSuite;
let star: string;
beforeAll(async () => {
  t = await startTestSuite();
  star = (await t.mint(['*'], { sub: 'papercut-star' })).token;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const message = (body: unknown) => (body as { error?: { message?: string } }).error?.message ?? '';

describe('paginated routes', () => {
  it('answers GET /runtime/logs without a limit with the default page', async () => {
    const r = await call(t.url('scheduler', '/runtime/logs'), { token: star });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('evidence', () => {
  it('answers 200 with no facts for a subject nothing is recorded about', async () => {
    const r = await call(t.url('trust', '/evidence/nobody-recorded'), { token: star });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ subjectId: 'nobody-recorded', subjectType: null, events: [], breaches: [] });
  });
});

describe('numbers out of range', () => {
  const HUGE = '99999999999999999999';
  it.each([
    ['token', '/audit'],
    ['token', '/admin/tenants'],
    ['dashboard', '/api/token/audit'],
    ['dashboard', '/api/token/admin/tenants'],
  ] as const)('answers %s %s?offset=huge with 400 naming offset, not 500', async (listener, path) => {
    const r = await call(t.url(listener, `${path}?offset=${HUGE}`), { adminKey: t.adminKey, token: star });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(message(r.body)).toMatch(/offset/);
  });
});

describe('a route of another listener', () => {
  it('answers 404 naming the listener that serves it, with its port', async () => {
    const r = await call(t.url('token', '/schedule'), { token: star, body: {} });
    expect(r.status).toBe(404);
    expect(r.code).toBe('NOT_FOUND');
    const port = new URL(t.url('scheduler')).port;
    expect(message(r.body)).toContain(`served by the scheduler listener (:${port})`);
  });

  it('names the listener for a path with parameters, and says nothing more for a route no listener has', async () => {
    const r = await call(t.url('scheduler', '/evidence/some-agent'), { token: star });
    expect(r.status).toBe(404);
    expect(message(r.body)).toContain('served by the trust listener');
    const none = await call(t.url('token', '/no-such-route'), { token: star });
    expect(none.status).toBe(404);
    expect(message(none.body)).not.toContain('served by');
  });
});
