import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { StorageLogger } from './errors.ts';
import { StorageError, type StorageErrorCode } from './errors.ts';
import type { ChildToParent, ParentToChild } from './pglite-process.ts';

/**
 * PGlite in a child process, reached over a loopback socket by the same slonik client as Postgres.
 * Measured on these machines (bench/storage-pglite.ts, 2 cores, other jobs running): in the main
 * thread a 0.65 s query froze the main event loop for 0.65 s, and every 500-row batch for its
 * duration; off the main thread the loop's worst delay stayed at idle noise (5-30 ms). A worker
 * thread and a child process measured the same within noise (batched 40-90k rows/s, single rows
 * 1.2-1.8k/s, start 2-3.5 s), but a worker shares V8's process-wide WebAssembly engine with the
 * main thread, and one test run died with SIGSEGV in a worker teardown. A process keeps the CPU time
 * and any crash on its side of the socket: after a crash, queries fail and ping() reports not ready.
 */
export interface PgliteBackend {
  /** postgres:// URL of the loopback socket (one client at a time). */
  readonly url: string;
  /** False once the child has exited (crash or stop). */
  alive(): boolean;
  /** In memory: it started from the kept copy of a database migrated to the digest given (pglite-template.ts). */
  readonly fromMigrated: boolean;
  /** In memory: keep a copy of the database, just migrated to that digest, for the next start. */
  keepMigrated(): Promise<void>;
  /** Stop the socket server, close PGlite and its folder lock, let the child exit. Idempotent. */
  stop(): Promise<void>;
}

const CHILD_PATH = fileURLToPath(new URL('./pglite-process.ts', import.meta.url));
/** Time for the child to close PGlite before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * PGlite for `dbPath` (locked and owner-only while it runs), or in memory when unset; in memory,
 * `migrated` (the digest of the migrations applied next) loads the kept copy of a database already
 * migrated to it, when there is one.
 */
export async function startPglite(dbPath: string | undefined, logger: StorageLogger, migrated?: string): Promise<PgliteBackend> {
  const child = fork(CHILD_PATH, [JSON.stringify({ dbPath, migrated })], {
    // Not the parent's flags: an --inspect port or a test runner's hooks have no place in the child.
    // PGlite's WebAssembly stays on V8's baseline compiler (Liftoff): optimising its hot functions in
    // the background cost 0.4-1.0 s of CPU per process and made the suite's short statements no
    // faster (5,000 of them as fast, with 0.7-1.0 s less CPU); long aggregates over many rows run
    // ~45% longer. docs/DECISIONS.md has the figures.
    execArgv: ['--liftoff-only'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  let exitExpected = false;
  // 'close', not 'exit': it comes once the process handle and its IPC channel are released too.
  const exit = once(child, 'close').then(([code, signal]: unknown[]) => {
    exited = true;
    // After a crash every query fails and ping() reports not ready; say why, once.
    if (!exitExpected) logger.error({ code, signal }, 'PGlite process exited unexpectedly');
  });
  child.on('error', (error) => logger.error({ err: error }, 'PGlite process failed'));

  const ready = await nextMessage(child);
  if (ready.type !== 'ready') {
    exitExpected = true;
    child.kill('SIGKILL');
    await exit;
    const code = ready.type === 'failed' && ready.code === 'DATABASE_IN_USE' ? ready.code : 'DATABASE_UNAVAILABLE';
    const reason = ready.type === 'failed' ? ready.message : 'it stopped before it was ready';
    throw new StorageError(code satisfies StorageErrorCode, `cannot start PGlite: ${reason}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://postgres@${ready.host}:${ready.port}/postgres`,
    alive: () => !exited,
    fromMigrated: ready.fromMigrated,
    async keepMigrated() {
      if (exited || !child.connected) return;
      const answered = nextMessage(child);
      child.send({ type: 'keep-migrated' } satisfies ParentToChild);
      const answer = await answered;
      if (answer.type !== 'kept') throw new Error(answer.type === 'failed' ? answer.message : `unexpected answer ${answer.type}`);
      if (answer.error !== undefined) throw new Error(answer.error);
    },
    stop() {
      stopping ??= (async () => {
        exitExpected = true;
        if (exited) return;
        if (child.connected) {
          const answered = nextMessage(child);
          child.send({ type: 'stop' } satisfies ParentToChild);
          const answer = await answered;
          if (answer.type === 'stopped' && answer.error !== undefined) {
            logger.error({ err: answer.error }, 'PGlite did not close cleanly');
          }
        }
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<'late'>((resolve) => {
          timer = setTimeout(resolve, STOP_GRACE_MS, 'late');
        });
        const outcome = await Promise.race([exit, grace]);
        clearTimeout(timer);
        if (outcome === 'late') {
          child.kill('SIGKILL');
          await exit;
        }
        // libuv releases the process handle in the close phase of the loop turn that saw the exit;
        // a timer runs after that phase, so close() resolves with nothing left behind.
        await new Promise((resolve) => setTimeout(resolve, 0));
      })();
      return stopping;
    },
  };
}

/** The child's next message, or a `failed` stand-in if it errors or exits first. */
function nextMessage(child: ChildProcess): Promise<ChildToParent> {
  return new Promise((resolve) => {
    const onMessage = (message: ChildToParent): void => settle(message);
    const onError = (error: Error): void => settle({ type: 'failed', message: error.message });
    const onExit = (code: number | null, signal: string | null): void => settle({ type: 'failed', message: `the PGlite process exited (${signal ?? code})` });
    const settle = (message: ChildToParent): void => {
      child.off('message', onMessage).off('error', onError).off('exit', onExit);
      resolve(message);
    };
    child.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}
