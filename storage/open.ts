import { resolve } from 'node:path';
import type { StorageLogger } from './errors.ts';
import { silentLogger } from './errors.ts';
import { DEFAULT_MIGRATIONS_DIR, migrate, type MigrationSet } from './migrate.ts';
import { startPglite } from './pglite.ts';
import { createStorageHandle, createSuitePool, redactUrl, type PoolSettings } from './postgres.ts';
import type { Storage, StorageOptions } from './types.ts';

export interface OpenStorageOptions extends StorageOptions {
  /** Folder of `NNN_name.sql` migrations; default `storage/migrations/`. */
  migrationsDir?: string | URL;
  /** Services' own migration sets, applied after the suite's (migrate.ts). */
  migrationSets?: readonly MigrationSet[];
  logger?: StorageLogger;
  /** Postgres only (PGlite cannot interrupt a running statement). Default 30 s. */
  statementTimeoutMs?: number;
  /** Time allowed to establish a connection. Default 5 s. */
  connectionTimeoutMs?: number;
  /** OpenTelemetry spans for queries, when the process records traces (postgres.ts). Default off. */
  tracing?: boolean;
}

const DEFAULT_POOL_SIZE = 10;
/** Long enough for chain verification pages and batch inserts, short enough to free a stuck pool. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Open the storage: Postgres when `databaseUrl` is set, else PGlite (in `dbPath`, or in memory).
 * Pending migrations are applied before the pool is handed out, so every caller sees the current
 * schema. Fails with StorageError (DATABASE_UNAVAILABLE, MIGRATION_*) rather than returning a
 * storage that cannot work.
 */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  const logger = options.logger ?? silentLogger;
  const dir = options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;

  if (options.databaseUrl !== undefined && options.databaseUrl !== '') {
    const url = options.databaseUrl;
    await migrate({ url, dir, sets: options.migrationSets ?? [], logger, connectionTimeoutMs });
    const pool = await createSuitePool(
      url,
      {
        maxPoolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
        statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
        connectionTimeoutMs,
        idleTimeoutMs: 30_000,
        tracing: options.tracing ?? false,
      },
      logger,
    );
    logger.info({ kind: 'postgres', url: redactUrl(url) }, 'storage open');
    return createStorageHandle('postgres', pool, async () => {});
  }

  const dbPath = options.dbPath === undefined ? undefined : resolve(options.dbPath);
  const backend = await startPglite(dbPath, logger);
  try {
    // Sequential on purpose: the socket serves one client, so migrate's connection closes
    // before the pool opens its own.
    await migrate({ url: backend.url, dir, sets: options.migrationSets ?? [], logger, connectionTimeoutMs });
    const settings: PoolSettings = {
      // PGlite is one session: a second connection would interleave two transactions.
      maxPoolSize: 1,
      statementTimeoutMs: 'DISABLE_TIMEOUT',
      connectionTimeoutMs,
      // Keep the one session open; reconnecting costs a round of startup messages for nothing.
      idleTimeoutMs: 'DISABLE_TIMEOUT',
      maximumConnectionAgeMs: 'DISABLE_TIMEOUT',
      tracing: options.tracing ?? false,
    };
    const pool = await createSuitePool(backend.url, settings, logger);
    logger.info({ kind: 'pglite', dbPath: dbPath ?? '(in memory)' }, 'storage open');
    return createStorageHandle('pglite', pool, backend.stop, backend.alive);
  } catch (error) {
    await backend.stop();
    throw error;
  }
}
