import type { Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createDurablePglite } from './pglite-durable.ts';

/**
 * PGlite (Postgres compiled to WASM) behind a loopback Postgres socket, so the one slonik client
 * speaks the same wire protocol to it as to a real server. The child process (pglite-process.ts)
 * runs it away from the main event loop; the storage benchmark also runs it in-thread to compare.
 */
export interface PgliteServer {
  readonly host: string;
  readonly port: number;
  /** Stop accepting and drop the socket (rolling back an open transaction), then close PGlite. */
  stop(): Promise<void>;
}

export interface PgliteServerOptions {
  /** Data directory that survives restarts, prepared and locked by data-dir.ts; unset: in memory. */
  dbPath?: string;
}

export async function startPgliteServer(options: PgliteServerOptions): Promise<PgliteServer> {
  const { dbPath } = options;
  // On a folder, commits are on disk before they are answered (pglite-durable.ts).
  const db = dbPath === undefined ? await PGlite.create({}) : await createDurablePglite(dbPath);
  // PGlite is ONE session. With two sockets, the server would interleave their protocol messages
  // (unnamed statements, transactions), so it serves exactly one client at a time (below); the
  // socket level admits a second so that a reconnecting client waits instead of being refused.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 2 });
  oneClientAtATime(server);
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const address = server.getServerConn();
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  const port = Number(address.slice(colon + 1));

  let stopping: Promise<void> | undefined;
  return {
    host,
    port,
    stop() {
      stopping ??= (async () => {
        try {
          await server.stop();
        } finally {
          await db.close();
        }
      })();
      return stopping;
    },
  };
}

/** How long a connection waits for the previous client to be gone before it is dropped. */
const HANDOFF_TIMEOUT_MS = 5_000;

/**
 * Serve one client at a time, the next waiting until the previous one's handler is gone.
 * pglite-socket itself refuses ("Too many connections") a connection that arrives while the last
 * one's handler is still attached, and slonik destroys its connection whenever a query fails (its
 * createConnection), then reconnects at once: every query queued behind a failing one failed with
 * ECONNRESET (measured: 33 of 36 concurrent innocent queries beside 24 failing ones). Waiting is
 * safe: the handler is removed on close, and its transaction, if any, is rolled back by the
 * server's transaction-aware query queue before another handler's queries run.
 *
 * pglite-socket keeps `handlers` and `handleConnection` private; this wraps the instance's method
 * (its listener calls `this.handleConnection` per connection). storage/pglite.test.ts checks it.
 */
function oneClientAtATime(server: PGLiteSocketServer): void {
  const s = server as unknown as { handlers: Set<unknown>; handleConnection(socket: Socket): Promise<void> };
  const accept = s.handleConnection.bind(server);
  let turn: Promise<unknown> = Promise.resolve();
  s.handleConnection = (socket: Socket) => {
    const mine = turn.then(async () => {
      const deadline = Date.now() + HANDOFF_TIMEOUT_MS;
      while (s.handlers.size > 0 && !socket.destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      if (socket.destroyed) return;
      if (s.handlers.size > 0) {
        socket.destroy();
        return;
      }
      await accept(socket);
    });
    turn = mine.catch(() => undefined);
    return mine;
  };
}

