import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call, errorCode } from '../helpers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The dashboard listener's same-origin proxy (`/api/<listener>/<path>`, docs/DASHBOARD.md) against a
 * real suite: the listener answers as it would directly, with the caller's own credential; nothing
 * else of the browser's request goes through; a stopped listener is a 503 in the error shape.
 */
let t: TestSuite;
let echo: Server;
const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  // The "trust" listener is a plain server here (SUITE_TRUST_URL), so what arrives can be read.
  echo = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.setHeader('content-type', 'application/json');
    res.setHeader('set-cookie', 'leak=1');
    res.end(JSON.stringify({ echoed: req.url }));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const port = (echo.address() as { port: number }).port;
  t = await startTestSuite({ SUITE_TRUST_URL: `http://127.0.0.1:${port}` });
}, machineTimeout(60_000));

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => echo?.close(resolve));
});

function rawGet(url: string): Promise<{ status: number; body: unknown }> {
  const u = new URL(url);
  const path = url.slice(u.origin.length);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += String(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the dashboard proxy', () => {
  it("answers a listener route as the listener does, under the caller's own token", async () => {
    const { token } = await t.mint(['audit:read']);
    const direct = await call(t.url('token', '/audit?limit=1'), { token });
    const proxied = await call(t.url('dashboard', '/api/token/audit?limit=1'), { token });
    expect(proxied.status).toBe(200);
    expect(direct.status).toBe(200);
    expect(Object.keys(proxied.body as object).sort()).toEqual(Object.keys(direct.body as object).sort());
  });

  it('lets the listener refuse a call without a token, in the error shape', async () => {
    const a = await call(t.url('dashboard', '/api/token/audit'));
    expect(a.status).toBe(401);
    expect(errorCode(a.body)).toBe('TOKEN_MISSING');
  });

  it('forwards a JSON body and the admin key, so the page can mint a token', async () => {
    const a = await call(t.url('dashboard', '/api/token/auth/token'), { adminKey: t.adminKey, body: { sub: 'via-proxy', scope: ['execution:read'] } });
    expect(a.status).toBe(200);
    expect((a.body as { token?: unknown }).token).toEqual(expect.any(String));
  });

  it('forwards the credential and content headers only: no cookie reaches the listener, none comes back', async () => {
    seen.length = 0;
    const res = await fetch(t.url('dashboard', '/api/trust/score/agent-1?x=1'), {
      headers: { authorization: 'Bearer abc', cookie: 'session=secret', 'x-other': 'no', accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echoed: '/score/agent-1?x=1' });
    expect(res.headers.get('set-cookie')).toBeNull();
    const arrived = seen.at(-1)?.headers ?? {};
    expect(arrived.authorization).toBe('Bearer abc');
    expect(arrived.cookie).toBeUndefined();
    expect(arrived['x-other']).toBeUndefined();
  });

  it('refuses an unknown listener, a dot segment and a broken escape before forwarding anything', async () => {
    seen.length = 0;
    // Sent byte for byte (fetch would resolve the dot segments before sending).
    for (const path of ['/api/nope/ready', '/api/trust/a/%2e%2e/ready', '/api/trust/a/../../ready', '/api/trust/%E0%A4%A', '/api/dashboard/ready']) {
      const a = await rawGet(t.url('dashboard', path));
      expect(a.status, path).toBe(400);
      expect(errorCode(a.body), path).toBe('INVALID_REQUEST');
    }
    expect(seen).toEqual([]);
  });

  it('answers 503 SERVICE_UNAVAILABLE naming the listener when it has stopped', async () => {
    const scheduler = t.suite.edges.find((e) => e.service === 'scheduler');
    await scheduler?.stop();
    const a = await call(t.url('dashboard', '/api/scheduler/ready'));
    expect(a.status).toBe(503);
    expect(errorCode(a.body)).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(a.body)).toContain('scheduler listener could not be reached');
  });
});
