import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, outboundPolicy, type OutboundGuard } from '../../../actors/outbound/index.ts';
import { httpTarget, type HttpTargetOptions } from './http.ts';

// A real server with a route per behaviour, and the guard a job measuring a local server uses.
const seen: { method: string; header: string | undefined; body: string }[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.end('ok'),
  '/missing': (_req, res) => {
    res.statusCode = 404;
    res.end('no');
  },
  '/broken': (_req, res) => {
    res.statusCode = 503;
    res.end('down');
  },
  // Headers at once, the body's last byte 80 ms later: the latency must reach the last byte.
  '/slow-body': (_req, res) => {
    res.writeHead(200);
    res.write('a');
    setTimeout(() => res.end('b'), 80);
  },
  '/silent': () => {}, // never answers
  '/moved': (_req, res) => {
    res.writeHead(302, { location: '/ok' });
    res.end();
  },
  '/echo': (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method!, header: req.headers['x-probe'] as string | undefined, body });
      res.end();
    });
  },
};
let server: Server;
let base: string;
let guard: OutboundGuard;
beforeAll(async () => {
  server = createServer((req, res) => (routes[req.url!] ?? routes['/missing']!)(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });
});
afterAll(async () => {
  await guard.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const target = (path: string, o: Partial<HttpTargetOptions> = {}) =>
  httpTarget({
    url: new URL(`${base}${path}`),
    method: 'GET',
    headers: {},
    body: undefined,
    dispatcher: guard.dispatcher,
    timeoutMs: 5_000,
    ...o,
  });
const live = () => new AbortController().signal;

describe('the http provider', () => {
  it('counts every status as a response, with its latency', async () => {
    for (const [path, status] of [
      ['/ok', 200],
      ['/missing', 404],
      ['/broken', 503],
    ] as const) {
      const r = await target(path).call(live());
      expect(r).toMatchObject({ ok: true, status });
      expect(r.latencyMs).toBeGreaterThan(0);
    }
  });

  it("ends a call's latency with the last byte of the body, not the headers", async () => {
    const r = await target('/slow-body').call(live());
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(r.latencyMs).toBeGreaterThanOrEqual(79);
  });

  it('sends the method, headers and body it was given', async () => {
    seen.length = 0;
    await target('/echo', { method: 'POST', headers: { 'x-probe': 'yes', 'content-type': 'text/plain' }, body: 'hello' }).call(live());
    expect(seen).toEqual([{ method: 'POST', header: 'yes', body: 'hello' }]);
  });

  it('follows a redirect through the guard and reports the final status', async () => {
    expect(await target('/moved').call(live())).toMatchObject({ ok: true, status: 200 });
  });

  it('reports a target that never answers as a timeout', async () => {
    const r = await target('/silent', { timeoutMs: 150 }).call(live());
    expect(r).toMatchObject({ ok: false, errorKind: 'timeout' });
  });

  it('reports a closed port as a connection error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await httpTarget({
      url: new URL(`http://127.0.0.1:${port}/`),
      method: 'GET',
      headers: {},
      body: undefined,
      dispatcher: guard.dispatcher,
      timeoutMs: 5_000,
    }).call(live());
    expect(r).toMatchObject({ ok: false, errorKind: 'connection' });
  });

  it("carries the guard's refusal when the policy does not allow the address", async () => {
    const strict = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: true, production: false }) });
    try {
      const r = await target('/ok', { dispatcher: strict.dispatcher }).call(live());
      expect(r.ok).toBe(false);
      expect(r.errorKind).toBe('refused');
      expect(r.refusal).toMatch(/loopback/);
    } finally {
      await strict.close();
    }
  });

  it('ends a call in flight when its signal aborts, and starts none on an aborted signal', async () => {
    const abort = new AbortController();
    const pending = target('/silent').call(abort.signal);
    setTimeout(() => abort.abort(new Error('stop')), 50);
    const started = performance.now();
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await target('/ok').call(abort.signal)).ok).toBe(false);
  });
});
