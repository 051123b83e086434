import type { DatabasePool } from 'slonik';

/**
 * The storage handle every actor receives (never a module-level pool). Postgres through slonik: a
 * server given by URL (distributed mode), or the suite's own in its data folder (embedded mode);
 * PGlite (Postgres in WebAssembly) behind a loopback socket, reached by the same slonik client, in
 * memory or on an earlier version's folder. Above this seam every kind runs the same SQL.
 */
export interface Storage {
  readonly kind: 'postgres' | 'pglite';
  readonly pool: DatabasePool;
  /** True when a trivial query answers within the timeout; `/ready` uses it. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** End the pool (in-flight queries finish), then stop the embedded database if any. Idempotent. */
  close(): Promise<void>;
}

export interface StorageOptions {
  /** `SUITE_DATABASE_URL`: a Postgres server. Takes precedence over `dbPath`. */
  databaseUrl?: string;
  /** `SUITE_DB_PATH`: the embedded database's folder (open.ts); unset means in-memory (nothing survives a restart). */
  dbPath?: string;
  /**
   * Most connections of the pool (`SUITE_DATABASE_POOL_SIZE`); default 10 on a server given by URL,
   * 4 on the embedded one (open.ts). PGlite is one session, so always 1.
   */
  poolSize?: number;
}
