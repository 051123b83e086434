import { sql } from 'slonik';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from './errors.ts';
import { migrate, readMigrations } from './migrate.ts';
import { openStorage } from './open.ts';
import { createTestDatabase, recordingLogger, writeMigrations, type TestDatabase } from '../testing/storage.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function migrations(files: Record<string, string>): Promise<Awaited<ReturnType<typeof writeMigrations>>> {
  const written = await writeMigrations(files);
  cleanups.push(written.remove);
  return written;
}

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  cleanups.push(created.drop);
  return created;
}

describe('reading the migrations folder', () => {
  it('reads NNN_name.sql files in numeric order and ignores files that are not SQL', async () => {
    const folder = await migrations({
      '010_later.sql': 'SELECT 10;',
      '002_early.sql': 'SELECT 2;',
      'README.md': 'not a migration',
    });
    const files = await readMigrations(folder.dir);
    expect(files.map((file) => [file.version, file.name])).toEqual([
      [2, 'early'],
      [10, 'later'],
    ]);
  });

  it('gives the same checksum to a file checked out with CRLF line endings', async () => {
    const lf = await migrations({ '001_a.sql': 'SELECT 1;\nSELECT 2;\n' });
    const crlf = await migrations({ '001_a.sql': 'SELECT 1;\r\nSELECT 2;\r\n' });
    const [a] = await readMigrations(lf.dir);
    const [b] = await readMigrations(crlf.dir);
    expect(a?.checksum).toBe(b?.checksum);
  });

  it('refuses a .sql file that is not named NNN_name.sql', async () => {
    const folder = await migrations({ '1_too_short.sql': 'SELECT 1;' });
    await expect(readMigrations(folder.dir)).rejects.toMatchObject({ code: 'MIGRATION_INVALID' });
  });

  it('refuses two migrations with the same number', async () => {
    const folder = await migrations({ '001_a.sql': 'SELECT 1;', '001_b.sql': 'SELECT 1;' });
    await expect(readMigrations(folder.dir)).rejects.toMatchObject({
      code: 'MIGRATION_INVALID',
      message: expect.stringContaining('share number 1'),
    });
  });

  it('treats a missing folder as no migrations', async () => {
    expect(await readMigrations('/nonexistent/suite-migrations')).toEqual([]);
  });
});

describe('migrating one Postgres database', () => {
  it('applies each migration exactly once when three storages start at the same time', async () => {
    const db = await database();
    // No IF NOT EXISTS and a primary key: a second application would fail. The sleep widens the
    // window in which unsynchronised starters would all find 001 pending.
    const folder = await migrations({
      '001_counter.sql': `CREATE TABLE applied (version int PRIMARY KEY); SELECT pg_sleep(0.3);
                          INSERT INTO applied VALUES (1);`,
      '002_more.sql': `INSERT INTO applied VALUES (2);`,
    });
    const logs = [recordingLogger(), recordingLogger(), recordingLogger()];
    const storages = await Promise.all(logs.map(({ logger }) => openStorage({ databaseUrl: db.url, migrationsDir: folder.dir, logger, poolSize: 2 })));
    cleanups.push(async () => {
      await Promise.all(storages.map((storage) => storage.close()));
    });

    const applied = logs.flatMap(({ lines }) => lines.filter((line) => line.message === 'migration applied'));
    expect(applied.map((line) => line.fields.version).sort()).toEqual([1, 2]);
    const [first] = storages;
    expect(await first?.pool.anyFirst(sql.unsafe`SELECT version FROM applied ORDER BY version`)).toEqual([1, 2]);
  });

  it('refuses a new migration numbered below one already applied', async () => {
    const db = await database();
    const folder = await migrations({ '001_a.sql': 'CREATE TABLE a (id int);', '003_c.sql': 'CREATE TABLE c (id int);' });
    const options = { url: db.url, dir: folder.dir, logger: silentLogger, connectionTimeoutMs: 5_000 };
    expect(await migrate(options)).toEqual([1, 3]);
    await folder.write('002_b.sql', 'CREATE TABLE b (id int);');
    await expect(migrate(options)).rejects.toMatchObject({
      code: 'MIGRATION_OUT_OF_ORDER',
      message: expect.stringContaining('002_b.sql'),
    });
  });

  it('refuses to run when the database has a migration this build does not know', async () => {
    const db = await database();
    const newer = await migrations({ '001_a.sql': 'CREATE TABLE a (id int);', '002_b.sql': 'CREATE TABLE b (id int);' });
    const older = await migrations({ '001_a.sql': 'CREATE TABLE a (id int);' });
    const options = { url: db.url, logger: silentLogger, connectionTimeoutMs: 5_000 };
    await migrate({ ...options, dir: newer.dir });
    await expect(migrate({ ...options, dir: older.dir })).rejects.toMatchObject({ code: 'MIGRATION_UNKNOWN' });
  });

  it("applies a service's own migration set in its own sequence, beside the suite's, each once", async () => {
    const db = await database();
    const suite = await migrations({ '001_a.sql': 'CREATE TABLE a (id int);' });
    const scheduler = await migrations({ '001_jobs.sql': 'CREATE TABLE jobs (id int);', '002_more.sql': 'ALTER TABLE jobs ADD COLUMN n int;' });
    const options = { url: db.url, dir: suite.dir, sets: [{ name: 'scheduler', dir: scheduler.dir }], logger: silentLogger, connectionTimeoutMs: 5_000 };
    await migrate(options);
    await migrate(options);
    const storage = await openStorage({ databaseUrl: db.url, migrationsDir: suite.dir, migrationSets: options.sets, poolSize: 1 });
    cleanups.push(() => storage.close());
    expect(await storage.pool.anyFirst(sql.unsafe`SELECT version FROM schema_migrations ORDER BY version`)).toEqual([1]);
    expect(await storage.pool.anyFirst(sql.unsafe`SELECT version FROM schema_migrations_scheduler ORDER BY version`)).toEqual([1, 2]);
    expect(await storage.pool.anyFirst(sql.unsafe`SELECT n FROM jobs`)).toEqual([]);
  });

  it('refuses a migration set whose name could not be a table name of ours', async () => {
    const db = await database();
    const suite = await migrations({});
    await expect(
      migrate({ url: db.url, dir: suite.dir, sets: [{ name: 'x; drop table a', dir: suite.dir }], logger: silentLogger, connectionTimeoutMs: 5_000 }),
    ).rejects.toMatchObject({ code: 'MIGRATION_INVALID' });
  });

  it('fails with DATABASE_UNAVAILABLE when the server cannot be reached', async () => {
    const folder = await migrations({});
    const unreachable = openStorage({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
      migrationsDir: folder.dir,
      connectionTimeoutMs: 1_000,
    });
    await expect(unreachable).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
  });
});
