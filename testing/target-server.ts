import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TargetServer {
  readonly url: string;
  /** Requests received so far (warm-ups included). */
  readonly hits: () => number;
  close(): Promise<void>;
}

/**
 * A local HTTP server answering every request after `delayMs` (a timer, so the delay is a floor,
 * not an exact value) with `status` and a small body. Test-only target for benchmarks.
 */
export async function startTargetServer(o: { delayMs?: number; status?: number } = {}): Promise<TargetServer> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    req.resume();
    const answer = () => {
      res.writeHead(o.status ?? 200, { 'content-type': 'text/plain' });
      res.end('ok');
    };
    if ((o.delayMs ?? 0) > 0) setTimeout(answer, o.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
