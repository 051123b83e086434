import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { machineTimeout } from './machine-time.ts';

/** What a target did with one request. */
export interface Hit {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly at: number;
}

/**
 * A real HTTP listener on loopback for outbound-call tests: it records every request and answers
 * what `answer` says (a status, optionally after a pause). Nothing about the caller is faked.
 */
export interface HttpTarget {
  readonly url: string;
  readonly hits: Hit[];
  hitsOn(path: string): Hit[];
  close(): Promise<void>;
}

export type Answer = (hit: Hit, nth: number) => { status: number; delayMs?: number; body?: string };

export async function startHttpTarget(answer: Answer = () => ({ status: 200 })): Promise<HttpTarget> {
  const hits: Hit[] = [];
  const perPath = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const hit: Hit = { path, method: req.method ?? 'GET', headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
      hits.push(hit);
      const nth = (perPath.get(path) ?? 0) + 1;
      perPath.set(path, nth);
      const a = answer(hit, nth);
      const send = () => {
        if (!res.destroyed) res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? 'ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    hitsOn: (path) => hits.filter((h) => h.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Resolve once `check` holds, polling; fail with `what` after `timeoutMs` (default: 10 s on a quiet
 * machine, longer on a loaded one: testing/machine-time.ts).
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = machineTimeout(10_000),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
