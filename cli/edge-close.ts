import type { Server } from 'node:http';
import type { Logger } from 'pino';

/** While an edge closes, how often the connections that have turned idle are closed. */
const IDLE_REAP_MS = 50;

/**
 * Stop an edge: it takes no new connection, finishes the requests in flight, and is closed.
 * - Two turns of the loop first, when it runs late (under load): a connection the kernel has already
 *   completed is accepted in the first, its waiting request read in the second; it is then a request
 *   in flight, drained, not an idle connection reset by the close.
 * - Node closes the connections idle when the close begins, once. A keep-alive connection whose answer
 *   was still being sent then (a dashboard scrape, a probe) turns idle after it and would hold the close
 *   until its client lets go (undici: 4 s): each is closed as it turns idle.
 * - Past half the grace time, connections still open are closed: one that never sent a request (seen
 *   from keep-alive pools, 0 bytes read) is not idle to Node and would hold the close for good. Half:
 *   the actors and the audit flush that stop after the edges need the rest.
 */
export async function closeEdge(app: { readonly server: Server; close(): PromiseLike<unknown> }, graceMs: number, logger: Logger): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  const forceAfterMs = graceMs / 2;
  const force = setTimeout(() => {
    logger.warn({ forceAfterMs }, 'connections still open after half the grace time are closed');
    app.server.closeAllConnections();
  }, forceAfterMs);
  const reap = setInterval(() => app.server.closeIdleConnections(), IDLE_REAP_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
    clearInterval(reap);
  }
}
