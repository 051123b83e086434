import type { Socket } from 'node:net';
import { type PGlite, protocol } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createDurablePglite } from './pglite-durable.ts';
import { createMemoryPglite, keepMigrated } from './pglite-template.ts';

/**
 * PGlite (Postgres compiled to WASM) behind a loopback Postgres socket, so the one slonik client
 * speaks the same wire protocol to it as to a real server. The child process (pglite-process.ts)
 * runs it away from the main event loop; the storage benchmark also runs it in-thread to compare.
 */
export interface PgliteServer {
  readonly host: string;
  readonly port: number;
  /** In memory: it started from the kept copy of a database migrated to `migrated`. */
  readonly fromMigrated: boolean;
  /** In memory: keep a copy of the database, just migrated to `migrated`, for the next start (pglite-template.ts). */
  keepMigrated(): Promise<void>;
  /** Stop accepting and drop the socket (rolling back an open transaction), then close PGlite. */
  stop(): Promise<void>;
}

export interface PgliteServerOptions {
  /** Data directory that survives restarts, prepared and locked by data-dir.ts; unset: in memory. */
  dbPath?: string;
  /** In memory: the digest of the migrations the opener applies next (migrate.ts migrationsDigest). */
  migrated?: string;
}

export async function startPgliteServer(options: PgliteServerOptions): Promise<PgliteServer> {
  const { dbPath, migrated } = options;
  // On a folder, commits are on disk before they are answered (pglite-durable.ts).
  const { db, fromMigrated } =
    dbPath === undefined ? await createMemoryPglite(undefined, migrated) : { db: await createDurablePglite(dbPath), fromMigrated: false };
  // PGlite is ONE session. With two sockets, the server would interleave their protocol messages
  // (unnamed statements, transactions), so it serves exactly one client at a time (below); the
  // socket level admits a second so that a reconnecting client waits instead of being refused.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 2 });
  oneClientAtATime(server, (socket) => freshSession(db, socket));
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
    fromMigrated,
    keepMigrated: async () => {
      if (dbPath === undefined && migrated !== undefined) await keepMigrated(db, migrated);
    },
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
 * Serve one client at a time, the next waiting until the previous one's handler is gone, then
 * starting on a fresh session (`prepare`).
 * pglite-socket itself refuses ("Too many connections") a connection that arrives while the last
 * one's handler is still attached, and slonik destroys its connection whenever a query fails (its
 * createConnection), then reconnects at once: every query queued behind a failing one failed with
 * ECONNRESET (measured: 33 of 36 concurrent innocent queries beside 24 failing ones).
 *
 * pglite-socket keeps `handlers` and `handleConnection` private; this wraps the instance's method
 * (its listener calls `this.handleConnection` per connection). storage/pglite.test.ts and
 * pglite-server.test.ts check it.
 */
function oneClientAtATime(server: PGLiteSocketServer, prepare: (socket: Socket) => Promise<boolean>): void {
  const s = server as unknown as { handlers: Set<unknown>; handleConnection(socket: Socket): Promise<void> };
  const accept = s.handleConnection.bind(server);
  let turn: Promise<unknown> = Promise.resolve();
  s.handleConnection = (socket: Socket) => {
    const mine = turn.then(async () => {
      const deadline = Date.now() + HANDOFF_TIMEOUT_MS;
      while (s.handlers.size > 0 && !socket.destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      if (socket.destroyed) return;
      if (s.handlers.size > 0 || !(await prepare(socket))) {
        socket.destroy();
        return;
      }
      await accept(socket);
    });
    turn = mine.catch(() => undefined);
    return mine;
  };
}

/** Sync: ends an extended-protocol exchange; after an error the backend ignores everything until one. */
const SYNC = protocol.serialize.sync();

/**
 * Give the next client a fresh session, as a new connection to Postgres has. PGlite is one backend
 * for the life of the process: whatever a client leaves in its session stays for the next one. The
 * one that wedged the suite: slonik destroys its connection after any failed query, the next
 * connection's `pg` client knows none of the named prepared statements of the chain writers
 * (storage/chains.ts), prepares them again, and every append then failed with "prepared statement
 * already exists", destroying the connection again, for good. A client may also leave an open or
 * aborted transaction (pglite-socket rolls back only one it saw begin), an extended-protocol
 * exchange cut before its Sync (the backend then silently ignores the next simple queries), session
 * settings or advisory locks.
 *
 * The Sync goes first, under PGlite's query lock (as pglite-socket sends protocol messages), and
 * after any query of the previous client still running. `exec` then queues behind pglite-socket's
 * own ROLLBACK of a departing client's transaction. DISCARD ALL (deallocate, reset, unlock, close
 * cursors, drop temporary tables) cannot run inside a transaction, hence the ROLLBACK before it.
 * False when the session cannot be made fresh: the connection is then refused, and retried.
 */
async function freshSession(db: PGlite, socket: Socket): Promise<boolean> {
  try {
    await db.runExclusive(() => db.execProtocolRaw(SYNC, { syncToFs: false }));
    if (db.isInTransaction()) await db.exec('ROLLBACK');
    await db.exec('DISCARD ALL');
    return !db.isInTransaction() && !socket.destroyed;
  } catch {
    return false;
  }
}
