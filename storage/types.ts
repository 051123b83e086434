import type { DatabasePool } from 'slonik';

/**
 * The storage handle every actor receives (never a module-level pool). Postgres through slonik in
 * distributed mode; PGlite (embedded Postgres) behind a loopback socket, reached by the same slonik
 * client, in embedded mode. Above this seam both modes run the same SQL.
 */
export interface Storage {
  readonly kind: 'postgres' | 'pglite';
  readonly pool: DatabasePool;
  /** True when a trivial query answers within the timeout; `/ready` uses it. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** End the pool (in-flight queries finish), then stop PGlite if embedded. Idempotent. */
  close(): Promise<void>;
}

export interface StorageOptions {
  /** `SUITE_DATABASE_URL`: a Postgres server. Takes precedence over `dbPath`. */
  databaseUrl?: string;
  /** `SUITE_DB_PATH`: PGlite data directory; unset means in-memory (nothing survives a restart). */
  dbPath?: string;
  /** Pool size for Postgres (PGlite is one session, so always 1). */
  poolSize?: number;
}
