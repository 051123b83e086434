import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StorageLogger } from '../storage/errors.ts';
import { openStorage, type OpenStorageOptions } from '../storage/open.ts';
import type { Storage, StorageOptions } from '../storage/index.ts';

/**
 * Test helpers: every storage contract test runs on both kinds (PGlite and a real Postgres). The
 * Postgres server comes from SUITE_TEST_DATABASE_URL, else the local default; when it cannot be
 * reached the test fails with a message saying so, it is never skipped (a green run must mean
 * "tested on Postgres").
 */
export const TEST_DATABASE_URL = process.env.SUITE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** URL of a fresh, empty database. */
  readonly url: string;
  /** Drop it (disconnecting whoever is still connected). Idempotent. */
  drop(): Promise<void>;
}

/** CREATE DATABASE suite_t_<random> on the test server; throws a clear error if unreachable. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `suite_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      // WITH (FORCE), Postgres 13+: a leaked connection must not leave the database behind.
      dropping ??= adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return dropping;
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    const shown = new URL(TEST_DATABASE_URL);
    if (shown.password !== '') shown.password = '***';
    throw new Error(
      `Postgres for tests is not reachable at ${shown.toString()} (${String(error)}). ` +
        'Start it, or set SUITE_TEST_DATABASE_URL to a server where this user may CREATE DATABASE. ' +
        'Storage tests run on Postgres as well as PGlite and are never skipped.',
      { cause: error },
    );
  }
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export interface TestStorage {
  readonly storage: Storage;
  /** Close the storage, then drop its database (Postgres). Idempotent. */
  dispose(): Promise<void>;
}

/** Where a storage lives across close and reopen: a temporary PGlite folder or a new database. */
export interface StoragePlace {
  /** Pass to openStorage (with migrationsDir etc.) as often as needed. */
  readonly options: StorageOptions;
  /** Delete the folder or drop the database; close every storage opened on it first. */
  remove(): Promise<void>;
}

export interface StorageKindUnderTest {
  readonly kind: Storage['kind'];
  /** A fresh, empty, migrated storage of this kind (in-memory PGlite, or a new Postgres database). */
  open(options?: Pick<OpenStorageOptions, 'migrationsDir' | 'migrationSets' | 'logger'>): Promise<TestStorage>;
  /** A place to open, close and reopen storage of this kind on. */
  place(): Promise<StoragePlace>;
}

/**
 * Both kinds, for `describe.each(storageKinds())('on $kind', ({ open }) => { ... })`.
 * Open one storage per test or per file and dispose of it in afterEach/afterAll.
 */
export function storageKinds(): StorageKindUnderTest[] {
  return [
    {
      kind: 'pglite',
      async open(options = {}) {
        const storage = await openStorage({ ...options });
        return { storage, dispose: () => storage.close() };
      },
      async place() {
        const folder = await mkdtemp(join(tmpdir(), 'suite-pglite-'));
        return {
          options: { dbPath: join(folder, 'db') },
          remove: () => rm(folder, { recursive: true, force: true }),
        };
      },
    },
    {
      kind: 'postgres',
      async open(options = {}) {
        const database = await createTestDatabase();
        try {
          const storage = await openStorage({ ...options, databaseUrl: database.url, poolSize: 4 });
          let disposing: Promise<void> | undefined;
          const dispose = (): Promise<void> => {
            disposing ??= storage.close().finally(() => database.drop());
            return disposing;
          };
          return { storage, dispose };
        } catch (error) {
          await database.drop();
          throw error;
        }
      },
      async place() {
        const database = await createTestDatabase();
        return { options: { databaseUrl: database.url, poolSize: 4 }, remove: () => database.drop() };
      },
    },
  ];
}

/** A temporary migrations folder holding `files` (name -> SQL), for migration tests. */
export async function writeMigrations(
  files: Record<string, string>,
): Promise<{ dir: string; write(name: string, sql: string): Promise<void>; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-migrations-'));
  const write = (name: string, sql: string): Promise<void> => writeFile(join(dir, name), sql);
  for (const [name, sql] of Object.entries(files)) await write(name, sql);
  return { dir, write, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps what it is told, so a test can assert on it (e.g. which migrations ran). */
export function recordingLogger(): { logger: StorageLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}
