import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

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
  const db = await PGlite.create(dbPath === undefined ? {} : { dataDir: dbPath });
  // PGlite is ONE session. With two sockets, the server would interleave their protocol messages
  // (unnamed statements, transactions), so it accepts exactly one client at a time.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
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
