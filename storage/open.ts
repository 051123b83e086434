import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DatabasePool } from 'slonik';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import type { RestartPolicy } from './embedded-supervisor.ts';
import type { StorageLogger } from './errors.ts';
import { silentLogger } from './errors.ts';
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationsDigest, type MigrationSet } from './migrate.ts';
import { startPglite } from './pglite.ts';
import { postgresBinaries, type PostgresBinaries } from './postgres-binaries.ts';
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
  /**
   * With `dbPath`: the engine for a new folder. Default 'postgres' (the embedded server) where it
   * can run; 'pglite' for tests of the PGlite folder that earlier versions made.
   */
  embeddedEngine?: 'postgres' | 'pglite';
  /**
   * The embedded Postgres server is restarted under this policy when it dies (embedded-supervisor.ts);
   * without it, a death is only logged and storage stays down.
   */
  embeddedRestart?: RestartPolicy;
}

const DEFAULT_POOL_SIZE = 10;
/**
 * The embedded server's pool: each connection is a Postgres backend of 3.5–7 MB (PSS: its caches of
 * catalog and plans), and the embedded default is sized for one machine (docs/PERFORMANCE.md,
 * "Memory of the embedded default"). Four carry the group commits of the chain and the audit sink
 * beside the reads; ten held 9–10 backends under the bench's load (bench/memory.ts). An idle timeout
 * would not lower it: the pool hands its idle connections out in turn, and the suite's periodic
 * queries (leases, the scheduler's polls) keep every one it opened in use.
 */
export const EMBEDDED_POOL = { maxPoolSize: 4, idleTimeoutMs: 30_000 } as const satisfies PoolShape;
/** Long enough for chain verification pages and batch inserts, short enough to free a stuck pool. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Open the storage: Postgres when `databaseUrl` is set; else, with `dbPath`, the suite's own
 * Postgres server on that folder (embeddedEngine below says when PGlite keeps it instead); else
 * PGlite in memory.
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
    const pool = await openPostgres(url, options, logger);
    logger.info({ kind: 'postgres', url: redactUrl(url) }, 'storage open');
    return createStorageHandle('postgres', pool, async () => {});
  }

  const dbPath = options.dbPath === undefined ? undefined : resolve(options.dbPath);
  const engine = dbPath === undefined ? undefined : await embeddedEngine(dbPath, options.embeddedEngine, logger);
  if (dbPath !== undefined && engine !== undefined) {
    const server = await startEmbeddedPostgres(dbPath, engine, logger, options.embeddedRestart);
    try {
      const pool = await openPostgres(server.url, options, logger, EMBEDDED_POOL);
      logger.info({ kind: 'postgres', embedded: true, dbPath }, 'storage open');
      return createStorageHandle('postgres', pool, server.stop, server.alive);
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  // In memory: started from a kept copy already migrated to these migrations when there is one (then
  // migrate finds nothing to apply), else migrated and kept for the next start (pglite-template.ts).
  // A folder it cannot read is migrate's to report.
  const migrated = dbPath === undefined ? await migrationsDigest(dir, options.migrationSets ?? []).catch(() => undefined) : undefined;
  const backend = await startPglite(dbPath, logger, migrated);
  try {
    // Sequential on purpose: the socket serves one client, so migrate's connection closes
    // before the pool opens its own.
    await migrate({ url: backend.url, dir, sets: options.migrationSets ?? [], logger, connectionTimeoutMs });
    if (migrated !== undefined && !backend.fromMigrated) {
      await backend.keepMigrated().catch((error: unknown) => logger.warn({ err: error }, 'could not keep a copy of the migrated in-memory database'));
    }
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
    logger.info(
      { kind: 'pglite', dbPath: dbPath ?? '(in memory)', ...(migrated !== undefined ? { fromMigratedCopy: backend.fromMigrated } : {}) },
      'storage open',
    );
    return createStorageHandle('pglite', pool, backend.stop, backend.alive);
  } catch (error) {
    await backend.stop();
    throw error;
  }
}

/** The pool's size and idling: a server given by URL gets 10 connections, closed after 30 s unused. */
type PoolShape = Pick<PoolSettings, 'maxPoolSize' | 'idleTimeoutMs'>;
const SERVER_POOL: PoolShape = { maxPoolSize: DEFAULT_POOL_SIZE, idleTimeoutMs: 30_000 };

/** Migrations applied, then the suite's pool: a Postgres server, external or the embedded one. */
async function openPostgres(url: string, options: OpenStorageOptions, logger: StorageLogger, shape: PoolShape = SERVER_POOL): Promise<DatabasePool> {
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  await migrate({ url, dir: options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR, sets: options.migrationSets ?? [], logger, connectionTimeoutMs });
  return createSuitePool(
    url,
    {
      ...shape,
      ...(options.poolSize === undefined ? {} : { maxPoolSize: options.poolSize }),
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      connectionTimeoutMs,
      tracing: options.tracing ?? false,
    },
    logger,
  );
}

/**
 * Which engine keeps a data folder: the embedded Postgres server (binaries from npm, see
 * postgres-binaries.ts), unless the folder already holds a PGlite database (every version before
 * this one made one: it stays on PGlite, now durable too, see pglite-durable.ts) or this machine
 * cannot run the server (no binaries for it; root without user namespaces), where PGlite is the
 * fallback: durable, but slower to append and heavier (docs/PERFORMANCE.md).
 * Undefined: PGlite.
 */
async function embeddedEngine(dbPath: string, wanted: OpenStorageOptions['embeddedEngine'], logger: StorageLogger): Promise<PostgresBinaries | undefined> {
  if (wanted === 'pglite') return undefined;
  if (await exists(join(dbPath, 'PG_VERSION'))) {
    logger.info({ dbPath }, 'the data folder holds a PGlite database (made by an earlier version): kept on PGlite');
    return undefined;
  }
  const found = await postgresBinaries();
  if (found.ok) return found.binaries;
  logger.warn({ dbPath, reason: found.reason }, 'the embedded Postgres cannot run here: PGlite keeps the data folder instead');
  return undefined;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
