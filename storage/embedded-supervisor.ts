import { StorageError, type StorageLogger } from './errors.ts';

/** One run of the embedded Postgres server (embedded-postgres.ts, spawnServer). */
export interface SupervisedServer {
  /** Undefined once the server answers a query; otherwise why it stopped or did not answer in time. */
  ready(url: string, timeoutMs: number): Promise<string | undefined>;
  /** Settles when the process has exited, for whatever reason. */
  readonly exited: Promise<void>;
  alive(): boolean;
  stop(): Promise<void>;
}

/** What to do when the embedded server dies (config: SUITE_DB_RESTART_ATTEMPTS, SUITE_DB_RESTART_WINDOW_MS). */
export interface RestartPolicy {
  /** Restarts tried after one death before giving up. */
  readonly attempts: number;
  /** Give up too when the server has been down this long (ms), whatever attempts remain. */
  readonly windowMs: number;
  /**
   * Called once when the server cannot be brought back: the process cannot serve and must end
   * (the runtime exits non-zero with the error's message) rather than answer 503 for good.
   */
  onGiveUp(error: StorageError): void;
}

/** First wait after a death, doubled per attempt up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * Keeps the embedded server up: when it exits without being asked to (kill -9, an OOM kill), a new
 * one is started on the same cluster and socket, after a short wait that doubles per failed attempt
 * (its orphaned backends need a moment to notice the postmaster is gone and let go of the shared
 * memory, or the new postmaster refuses to start). Postgres replays its WAL on start, so every
 * committed transaction is there again; the pool's dead connections fail their queries and are
 * replaced by new ones to the same socket, so nothing above storage has to reconnect. While it is
 * down, `alive()` is false, so `/ready` answers 503.
 *
 * Written here rather than taken from a process manager: the server must share the suite's data
 * folder lock, socket and lifetime, and the suite must know when it gave up (docs/DECISIONS.md).
 */
export function superviseServer(o: {
  first: SupervisedServer;
  spawn: () => SupervisedServer;
  url: string;
  cluster: string;
  policy: RestartPolicy;
  logger: StorageLogger;
}): { alive(): boolean; stop(): Promise<void> } {
  let current = o.first;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let pending: SupervisedServer | undefined;

  const watch = (server: SupervisedServer) => {
    void server.exited.then(() => {
      if (stopping || server !== current) return;
      restarting = restart().finally(() => (restarting = undefined));
    });
  };

  /** Waits `ms`, or less when stop() is called meanwhile. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function restart(): Promise<void> {
    const diedAt = Date.now();
    let lastFailure = 'no attempt was made';
    for (let attempt = 1; attempt <= o.policy.attempts; attempt++) {
      await pause(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1)));
      const left = o.policy.windowMs - (Date.now() - diedAt);
      if (stopping || left <= 0) break;
      o.logger.warn({ attempt, of: o.policy.attempts, cluster: o.cluster }, 'restarting the embedded Postgres');
      const next = o.spawn();
      pending = next;
      const failure = await next.ready(o.url, left);
      pending = undefined;
      if (failure === undefined && !stopping) {
        current = next;
        watch(next);
        o.logger.info({ attempt, downMs: Date.now() - diedAt }, 'embedded Postgres restarted');
        return;
      }
      await next.stop();
      if (stopping) return;
      lastFailure = failure ?? 'stopped';
      o.logger.error({ attempt, failure: lastFailure.slice(-500) }, 'the embedded Postgres did not restart');
    }
    if (stopping) return;
    const seconds = Math.round((Date.now() - diedAt) / 100) / 10;
    o.policy.onGiveUp(
      new StorageError(
        'DATABASE_UNAVAILABLE',
        `the embedded Postgres in ${o.cluster} died and could not be restarted (${o.policy.attempts} attempts in ${seconds} s; ` +
          `SUITE_DB_RESTART_ATTEMPTS, SUITE_DB_RESTART_WINDOW_MS): ${lastFailure.split('\n').slice(-3).join(' ').slice(-500)}`,
      ),
    );
  }

  watch(o.first);
  return {
    alive: () => restarting === undefined && current.alive(),
    async stop() {
      stopping = true;
      wake?.();
      // A server being started is stopped too (its ready() gives up at once), not waited for.
      const starting = pending;
      await starting?.stop();
      await restarting;
      await current.stop();
    },
  };
}
