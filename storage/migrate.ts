import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { StorageLogger } from './errors.ts';
import { StorageError } from './errors.ts';

/**
 * Numbered SQL migrations (`NNN_name.sql`), applied in order, each in its own transaction, recorded
 * in `schema_migrations` with the checksum of the file. They run on a plain `pg` client rather than
 * the slonik pool because a migration file holds several statements, which only the simple query
 * protocol accepts (slonik always uses the extended protocol, one statement per query).
 *
 * Concurrency: every process takes the same session advisory lock for the whole run, so several
 * replicas starting at once apply each migration exactly once; the others wait, then find nothing
 * to do. A statement that cannot run in a transaction (CREATE INDEX CONCURRENTLY) is not supported.
 */
export const DEFAULT_MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** pg_advisory_lock key: fixed, and specific enough not to collide with anyone else's lock. */
const MIGRATION_LOCK_KEY = 7_215_402_915_273_941;
const FILE_NAME = /^(\d{3,})_([a-z0-9][a-z0-9_-]*)\.sql$/;

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/**
 * A service's own migrations: numbered in their own sequence and recorded in their own table
 * (`schema_migrations_<name>`), so a service adds tables without taking numbers from anyone else's.
 */
export interface MigrationSet {
  /** Lowercase letters, digits and underscores, starting with a letter. */
  name: string;
  dir: string | URL;
}

const SET_NAME = /^[a-z][a-z0-9_]{0,39}$/;

export interface MigrateOptions {
  /** postgres:// URL; migrate opens and closes its own connection. */
  url: string;
  /** Folder of the suite's own `NNN_name.sql` files (table `schema_migrations`); a missing folder counts as empty. */
  dir: string | URL;
  /** Services' migration sets, applied after the suite's own, in this order. */
  sets?: readonly MigrationSet[];
  logger: StorageLogger;
  connectionTimeoutMs: number;
}

/** Apply pending migrations; returns the versions of the suite's own set applied by this call. */
export async function migrate(options: MigrateOptions): Promise<number[]> {
  const files = await readMigrations(options.dir);
  const sets: Array<{ table: string; files: MigrationFile[] }> = [];
  for (const set of options.sets ?? []) {
    if (!SET_NAME.test(set.name)) throw new StorageError('MIGRATION_INVALID', `migration set name "${set.name}" must match ${SET_NAME.source}`);
    sets.push({ table: `schema_migrations_${set.name}`, files: await readMigrations(set.dir) });
  }
  const client = new pg.Client({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectionTimeoutMs,
  });
  // Without a listener, a connection dropped while idle would throw out of the event loop.
  client.on('error', (error) => options.logger.warn({ err: error }, 'migration connection error'));
  try {
    await client.connect();
  } catch (error) {
    throw new StorageError('DATABASE_UNAVAILABLE', `cannot connect to migrate: ${String(error)}`, {
      cause: error,
    });
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const done = await applyPending(client, files, options.logger, 'schema_migrations');
      for (const set of sets) await applyPending(client, set.files, options.logger, set.table);
      return done;
    } finally {
      // If this fails the connection is gone, and the lock with it; keep the original error.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: pg.Client, files: readonly MigrationFile[], logger: StorageLogger, table: string): Promise<number[]> {
  // Inside the lock: concurrent CREATE TABLE IF NOT EXISTS can still collide on the catalog.
  // `table` is ours (schema_migrations or schema_migrations_<checked set name>), never input.
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
    version int PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied = await client.query<{ version: number; name: string; checksum: string }>(`SELECT version, name, checksum FROM ${table} ORDER BY version`);
  const byVersion = new Map(files.map((file) => [file.version, file]));
  let highestApplied = 0;
  for (const row of applied.rows) {
    const file = byVersion.get(row.version);
    if (file === undefined) {
      throw new StorageError(
        'MIGRATION_UNKNOWN',
        `The database has migration ${row.version} (${row.name}) that this build does not have; ` +
          'it was migrated by a newer build. Run that build (or newer).',
      );
    }
    if (file.checksum !== row.checksum) {
      throw new StorageError(
        'MIGRATION_CHANGED',
        `Migration ${formatName(file)} was changed after it was applied (checksum ${row.checksum} ` +
          `in the database, ${file.checksum} on disk). Never edit an applied migration: restore ` +
          'the file and add a new migration instead.',
      );
    }
    highestApplied = Math.max(highestApplied, row.version);
  }

  const appliedVersions = new Set(applied.rows.map((row) => row.version));
  const pending = files.filter((file) => !appliedVersions.has(file.version));
  const done: number[] = [];
  for (const file of pending) {
    if (file.version < highestApplied) {
      throw new StorageError(
        'MIGRATION_OUT_OF_ORDER',
        `Migration ${formatName(file)} is new but migration ${highestApplied} is already applied; give it a number above every applied one.`,
      );
    }
    await applyOne(client, file, table);
    logger.info({ version: file.version, name: file.name, table }, 'migration applied');
    done.push(file.version);
  }
  return done;
}

async function applyOne(client: pg.Client, file: MigrationFile, table: string): Promise<void> {
  await client.query('BEGIN');
  try {
    // No parameters: pg sends it with the simple query protocol, which runs several statements.
    await client.query(file.sql);
    await client.query(`INSERT INTO ${table} (version, name, checksum) VALUES ($1, $2, $3)`, [file.version, file.name, file.checksum]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw new StorageError('MIGRATION_FAILED', `Migration ${formatName(file)} failed: ${String(error)}`, {
      cause: error,
    });
  }
}

/**
 * A digest of every migration `migrate` would apply with these options (each table's versions, names
 * and checksums, in order): two databases migrated from equal digests have the same schema. It names
 * the kept copy of a migrated in-memory database (pglite-template.ts).
 */
export async function migrationsDigest(dir: string | URL, sets: readonly MigrationSet[] = []): Promise<string> {
  const tables: Array<[string, MigrationFile[]]> = [['schema_migrations', await readMigrations(dir)]];
  for (const set of sets) tables.push([`schema_migrations_${set.name}`, await readMigrations(set.dir)]);
  const hash = createHash('sha256');
  for (const [table, files] of tables) {
    hash.update(`${table}\n`);
    for (const file of files) hash.update(`${file.version} ${file.name} ${file.checksum}\n`);
  }
  return hash.digest('hex').slice(0, 32);
}

/** The migration files of `dir`, sorted by version; files not ending in `.sql` are ignored. */
export async function readMigrations(dirOrUrl: string | URL): Promise<MigrationFile[]> {
  const dir = typeof dirOrUrl === 'string' ? dirOrUrl : fileURLToPath(dirOrUrl);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: MigrationFile[] = [];
  for (const entry of entries.filter((name) => name.endsWith('.sql')).sort()) {
    const match = FILE_NAME.exec(entry);
    if (match === null) {
      throw new StorageError('MIGRATION_INVALID', `Migration file "${entry}" is not named NNN_name.sql (digits, underscore, lowercase name).`);
    }
    const sql = await readFile(join(dir, entry), 'utf8');
    const version = Number(match[1]);
    const duplicate = files.find((file) => file.version === version);
    if (duplicate !== undefined) {
      throw new StorageError('MIGRATION_INVALID', `Migrations ${formatName(duplicate)} and ${entry} share number ${version}.`);
    }
    // Line endings normalised: a checkout with CRLF (git autocrlf) is the same migration.
    const checksum = createHash('sha256').update(sql.replaceAll('\r\n', '\n')).digest('hex');
    files.push({ version, name: match[2] ?? '', sql, checksum });
  }
  return files.sort((a, b) => a.version - b.version);
}

function formatName(file: MigrationFile): string {
  return `${String(file.version).padStart(3, '0')}_${file.name}.sql`;
}
