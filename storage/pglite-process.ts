import { lockDataDir } from './data-dir.ts';
import { startPgliteServer, type PgliteServer } from './pglite-server.ts';

/**
 * Child-process entry (started by pglite.ts with fork): PGlite and its socket server, away from the
 * main process. PGlite runs every query synchronously on its thread, so in the main process it
 * would freeze the HTTP event loop; in a worker thread it shares V8's process-wide WebAssembly
 * engine with the main thread, and we saw a worker teardown kill the whole process with SIGSEGV.
 * A process keeps both the CPU time and any crash on its side of the loopback socket.
 *
 * argv[2]: JSON `{ dbPath?: string; migrated?: string }`. Messages: parent -> child `{ type: 'stop' }`,
 * `{ type: 'keep-migrated' }` (answered `kept`); child -> parent `ready`, `failed`, `stopped`. If the
 * parent dies, the IPC channel closes and the child closes PGlite and exits, so no orphan keeps the
 * data folder open.
 */
export type ChildToParent =
  | { type: 'ready'; host: string; port: number; fromMigrated: boolean }
  | { type: 'kept'; error?: string }
  | { type: 'failed'; message: string; code?: string }
  | { type: 'stopped'; error?: string };

export type ParentToChild = { type: 'stop' } | { type: 'keep-migrated' };

/** Settles once the message has been handed to the channel (or at once when there is none). */
const send = (message: ChildToParent): Promise<void> =>
  new Promise((done) => {
    if (!process.connected || process.send === undefined) return done();
    process.send(message, undefined, {}, () => done());
  });

async function main(): Promise<void> {
  if (process.send === undefined) throw new Error('pglite-process.ts must be started with fork()');
  const options = JSON.parse(process.argv[2] ?? '{}') as { dbPath?: string; migrated?: string };
  let unlock: () => Promise<void> = async () => {};
  let server: PgliteServer;
  try {
    // The lock records this process's pid: the one that really has the files open.
    if (options.dbPath !== undefined) unlock = await lockDataDir(options.dbPath);
    server = await startPgliteServer(options);
  } catch (error) {
    await unlock();
    const code = (error as { code?: unknown }).code;
    await send({ type: 'failed', message: String((error as Error).message ?? error), ...(typeof code === 'string' ? { code } : {}) });
    process.disconnect();
    return;
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      let failure: string | undefined;
      try {
        await server.stop();
      } catch (error) {
        failure = String(error);
      }
      // Unlock before answering: the parent may reopen the folder as soon as it hears back.
      await unlock();
      await send(failure === undefined ? { type: 'stopped' } : { type: 'stopped', error: failure });
      // PGlite is closed (its folder's files written and synced) and the folder unlocked: nothing is
      // left to do, but Node's own teardown of this process, freeing PGlite's WebAssembly memory, took
      // 2.0-2.7 s and about 2.5 s of CPU (user and system) per stop, measured; a suite's tests open
      // hundreds of in-memory databases. A SIGKILL ends the process without it (stop: ~90 ms).
      process.kill(process.pid, 'SIGKILL');
    })();
    return stopping;
  };
  process.on('message', (message: ParentToChild) => {
    if (message.type === 'stop') void stop();
    if (message.type === 'keep-migrated') {
      server.keepMigrated().then(
        () => void send({ type: 'kept' }),
        (error: unknown) => void send({ type: 'kept', error: String(error) }),
      );
    }
  });
  process.on('disconnect', () => void stop());
  // Ctrl+C reaches the whole process group, and a supervisor's SIGTERM may reach every process: the
  // parent must first drain its pool (its transactions are still running here), then tell us to stop.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  void send({ type: 'ready', host: server.host, port: server.port, fromMigrated: server.fromMigrated });
}

await main();
