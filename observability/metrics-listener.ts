import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from './metrics.ts';

export interface MetricsListener {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * `GET /metrics` for a process that runs no listener (actor roles only: the chain writers, the
 * scheduler's workers), so that its series are scraped too (docs/OBSERVABILITY.md, Scraping). It
 * answers nothing else; node:http rather than a Fastify app, since it has one route and no callers
 * but Prometheus.
 */
export async function startMetricsListener(metrics: MetricsRegistry, host: string, port: number): Promise<MetricsListener> {
  const exposition = metrics.exposition('metrics');
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'this listener serves GET /metrics only' } }));
      return;
    }
    exposition().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () =>
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'metrics could not be collected' } })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
