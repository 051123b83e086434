import { createPool, sql, type ClientConfigurationInput, type DatabasePool } from 'slonik';
import type { StorageLogger } from './errors.ts';
import { StorageError } from './errors.ts';
import { rowValidation } from './row-schema.ts';
import { suiteTypeParsers } from './type-parsers.ts';
import type { Storage } from './types.ts';

/** Pool tuning shared by both kinds; each kind fixes its own defaults (see open.ts). */
export interface PoolSettings {
  maxPoolSize: number;
  /** Server-side statement timeout; Postgres enforces it, PGlite cannot (no timer signals in WASM). */
  statementTimeoutMs: number | 'DISABLE_TIMEOUT';
  /** How long to wait for a connection to be established. */
  connectionTimeoutMs: number;
  /** Close a connection idle this long (keep PGlite's single session open: 'DISABLE_TIMEOUT'). */
  idleTimeoutMs: number | 'DISABLE_TIMEOUT';
  /** Recycle connections this old (slonik's default: 30 min); PGlite keeps its one session. */
  maximumConnectionAgeMs?: number | 'DISABLE_TIMEOUT';
  /** OpenTelemetry spans per query and connection acquire (slonik's `tracing`); default off. */
  tracing?: boolean;
}

/** A slonik pool with the suite's type parsers (type-parsers.ts); fails if the database is unreachable. */
export async function createSuitePool(url: string, settings: PoolSettings, logger: StorageLogger): Promise<DatabasePool> {
  const configuration: ClientConfigurationInput = {
    maxPoolSize: settings.maxPoolSize,
    statementTimeout: settings.statementTimeoutMs,
    connectionTimeout: settings.connectionTimeoutMs,
    idleTimeout: settings.idleTimeoutMs,
    ...(settings.maximumConnectionAgeMs === undefined ? {} : { maximumConnectionAge: settings.maximumConnectionAgeMs }),
    // A transaction left open holds locks and blocks vacuum. Postgres enforces this; PGlite ignores
    // startup settings (and could not interrupt a statement anyway).
    idleInTransactionSessionTimeout: 60_000,
    typeParsers: suiteTypeParsers,
    interceptors: [rowValidation],
    // slonik runs DISCARD ALL on every release by default: one extra round trip per query (measured:
    // single-row inserts 2.2k/s -> 3.3k/s on Postgres, 1.3k/s -> 2.2k/s on PGlite without it). Our
    // queries keep no session state (no session-level SET, temp tables or session advisory locks;
    // migrate.ts uses its own client), so there is nothing to discard. Use SET LOCAL in transactions.
    resetConnection: async () => {},
    // OpenTelemetry spans per query (`slonik.executeQuery`: the SQL text with placeholders, never
    // the bound values) and per connection acquire, through the process's tracer provider; they
    // are children of the actor's span, so a trace reaches the database (DESIGN, "The bus"). Only
    // when the process records: otherwise four non-recording spans per query would buy nothing.
    tracing: settings.tracing ?? false,
  };
  let pool: DatabasePool;
  try {
    pool = await createPool(url, configuration);
  } catch (error) {
    throw new StorageError('DATABASE_UNAVAILABLE', `cannot open a pool on ${redactUrl(url)}`, {
      cause: error,
    });
  }
  // An idle connection that dies emits 'error' on the pool; unhandled, it would crash the process.
  pool.on('error', (error) => logger.error({ err: error }, 'database connection error'));
  return pool;
}

/**
 * The Storage handle over a pool. `stopBackend` runs after the pool has ended (PGlite's process);
 * close() is idempotent and every caller awaits the same shutdown.
 */
export function createStorageHandle(
  kind: Storage['kind'],
  pool: DatabasePool,
  stopBackend: () => Promise<void>,
  isBackendAlive: () => boolean = () => true,
): Storage {
  let closing: Promise<void> | undefined;
  return {
    kind,
    pool,
    async ping(timeoutMs = 1_000) {
      if (closing !== undefined || !isBackendAlive()) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const answered = pool.oneFirst(sql.unsafe`SELECT 1`).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([answered, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      closing ??= (async () => {
        try {
          await pool.end();
        } finally {
          await stopBackend();
        }
      })();
      return closing;
    },
  };
}

/** For messages and logs: a URL without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable database URL)';
  }
}
