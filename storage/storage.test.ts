import { SchemaValidationError, sql } from 'slonik';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { openStorage } from './open.ts';
import { rowSchema } from './row-schema.ts';
import { recordingLogger, storageKinds, writeMigrations, type TestStorage } from '../testing/storage.ts';

// Storage contract: every test runs on PGlite (worker + socket) and on a real Postgres database.

const MIGRATIONS = {
  // Several statements in one file, as real migrations have.
  '001_widgets.sql': `
    CREATE TABLE widgets (id int8 PRIMARY KEY, name text NOT NULL);
    INSERT INTO widgets (id, name) VALUES (1, 'seed');`,
  '002_widget_price.sql': `ALTER TABLE widgets ADD COLUMN price numeric(12, 2);`,
};

const WidgetRow = rowSchema(Type.Object({ id: Type.Number(), name: Type.String() }));
const MigrationRow = rowSchema(Type.Object({ version: Type.Number(), name: Type.String(), checksum: Type.String(), applied_at: Type.String() }));

describe.each(storageKinds())('storage on $kind', (kind) => {
  let migrations: Awaited<ReturnType<typeof writeMigrations>>;
  beforeAll(async () => {
    migrations = await writeMigrations(MIGRATIONS);
  });
  afterAll(() => migrations.remove());

  describe('once open', () => {
    let handle: TestStorage;
    beforeAll(async () => {
      handle = await kind.open({ migrationsDir: migrations.dir });
    });
    afterAll(() => handle.dispose());

    it('reports its kind and answers ping', async () => {
      expect(handle.storage.kind).toBe(kind.kind);
      expect(await handle.storage.ping(2_000)).toBe(true);
    });

    it('has applied the migrations in order, each recorded once with its checksum', async () => {
      const rows = await handle.storage.pool.any(sql.type(MigrationRow)`SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`);
      expect(rows.map((row) => [row.version, row.name])).toEqual([
        [1, 'widgets'],
        [2, 'widget_price'],
      ]);
      for (const row of rows) {
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.applied_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    });

    it('commits a transaction', async () => {
      const { pool } = handle.storage;
      await pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (10, 'committed')`);
      });
      expect(await pool.oneFirst(sql.unsafe`SELECT name FROM widgets WHERE id = 10`)).toBe('committed');
    });

    it('rolls back a transaction whose handler throws', async () => {
      const { pool } = handle.storage;
      const failing = pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (11, 'rolled back')`);
        throw new Error('handler failed');
      });
      await expect(failing).rejects.toThrow('handler failed');
      expect(await pool.exists(sql.unsafe`SELECT 1 FROM widgets WHERE id = 11`)).toBe(false);
    });

    it('keeps concurrent transactions apart', async () => {
      const { pool } = handle.storage;
      const slow = pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (20, 'slow')`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await tx.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (21, 'slow')`);
      });
      const failing = pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (22, 'failing')`);
        throw new Error('second transaction fails');
      });
      await Promise.all([slow, expect(failing).rejects.toThrow('second transaction fails')]);
      const ids = await pool.anyFirst(sql.unsafe`SELECT id FROM widgets WHERE id BETWEEN 20 AND 22 ORDER BY id`);
      expect(ids).toEqual([20, 21]);
    });

    it('answers every query queued beside failing queries and failing transactions', async () => {
      // slonik drops a connection whenever a query or a transaction handler fails and reconnects at
      // once; on PGlite the reconnecting client must wait for the previous one, not be refused.
      const { pool } = handle.storage;
      const results = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) => {
          if (i % 5 === 0) return pool.query(sql.unsafe`SELECT 1 / 0`);
          if (i % 5 === 1)
            return pool.transaction(async (tx) => {
              await tx.query(sql.unsafe`SELECT 1`);
              throw new Error('handler refuses');
            });
          return pool.oneFirst(sql.unsafe`SELECT ${i}::int AS n`);
        }),
      );
      const innocent = results.filter((_, i) => i % 5 > 1);
      expect(innocent.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(24);
    });

    it('reads int8 as number, numeric as string, timestamptz as ISO string and jsonb parsed', async () => {
      const row = await handle.storage.pool.one(sql.unsafe`
        SELECT 9007199254740991::int8 AS big, 12.50::numeric(12, 2) AS price,
               '2025-01-02T03:04:05.678Z'::timestamptz AS at, '{"a":[1,"x"]}'::jsonb AS doc,
               ARRAY[1, 2]::int8[] AS ids`);
      expect(row).toEqual({
        big: 9007199254740991,
        price: '12.50',
        at: '2025-01-02T03:04:05.678Z',
        doc: { a: [1, 'x'] },
        ids: [1, 2],
      });
    });

    it('refuses an int8 that a JS number cannot hold exactly', async () => {
      const query = handle.storage.pool.oneFirst(sql.unsafe`SELECT 9007199254740993::int8`);
      await expect(query).rejects.toThrow(/safe integer range/);
    });

    it('types and validates rows of sql.type(rowSchema(...))', async () => {
      const { pool } = handle.storage;
      const seed = await pool.one(sql.type(WidgetRow)`SELECT id, name FROM widgets WHERE id = 1`);
      expectTypeOf(seed).toEqualTypeOf<{ id: number; name: string }>();
      expect(seed).toEqual({ id: 1, name: 'seed' });
      const drifted = pool.one(sql.type(WidgetRow)`SELECT id, 42 AS name FROM widgets WHERE id = 1`);
      await expect(drifted).rejects.toThrow(SchemaValidationError);
    });
  });

  it('applies nothing when started again on a migrated database, and keeps committed data', async () => {
    const place = await kind.place();
    try {
      const first = recordingLogger();
      const storage = await openStorage({ ...place.options, migrationsDir: migrations.dir, logger: first.logger });
      await storage.pool.query(sql.unsafe`INSERT INTO widgets (id, name) VALUES (2, 'kept')`);
      await storage.close();
      expect(first.lines.filter((line) => line.message === 'migration applied')).toHaveLength(2);

      const second = recordingLogger();
      const reopened = await openStorage({ ...place.options, migrationsDir: migrations.dir, logger: second.logger });
      try {
        expect(second.lines.filter((line) => line.message === 'migration applied')).toHaveLength(0);
        expect(await reopened.pool.anyFirst(sql.unsafe`SELECT name FROM widgets ORDER BY id`)).toEqual(['seed', 'kept']);
      } finally {
        await reopened.close();
      }
    } finally {
      await place.remove();
    }
  });

  it('refuses to start when an applied migration file was changed', async () => {
    const place = await kind.place();
    const changing = await writeMigrations(MIGRATIONS);
    try {
      await (await openStorage({ ...place.options, migrationsDir: changing.dir })).close();
      await changing.write('002_widget_price.sql', `ALTER TABLE widgets ADD COLUMN price numeric(14, 2);`);
      const reopening = openStorage({ ...place.options, migrationsDir: changing.dir });
      await expect(reopening).rejects.toMatchObject({
        code: 'MIGRATION_CHANGED',
        message: expect.stringContaining('002_widget_price.sql was changed after it was applied'),
      });
    } finally {
      await changing.remove();
      await place.remove();
    }
  });

  it('rolls back a failing migration and names its file', async () => {
    const failing = await writeMigrations({
      ...MIGRATIONS,
      '003_broken.sql': `CREATE TABLE gadgets (id int PRIMARY KEY); INSERT INTO no_such_table VALUES (1);`,
    });
    const place = await kind.place();
    try {
      await expect(openStorage({ ...place.options, migrationsDir: failing.dir })).rejects.toMatchObject({
        code: 'MIGRATION_FAILED',
        message: expect.stringContaining('003_broken.sql'),
      });
      // 001 and 002 stay applied; 003 left nothing behind (gadgets was rolled back with it).
      await failing.write('003_broken.sql', `CREATE TABLE gadgets (id int PRIMARY KEY);`);
      const storage = await openStorage({ ...place.options, migrationsDir: failing.dir });
      try {
        expect(await storage.pool.anyFirst(sql.unsafe`SELECT version FROM schema_migrations ORDER BY version`)).toEqual([1, 2, 3]);
      } finally {
        await storage.close();
      }
    } finally {
      await failing.remove();
      await place.remove();
    }
  });

  it('answers ping false after close, and close can be repeated', async () => {
    const handle = await kind.open({ migrationsDir: migrations.dir });
    const { storage } = handle;
    await Promise.all([storage.close(), storage.close()]);
    await storage.close();
    expect(await storage.ping(500)).toBe(false);
    await handle.dispose();
  });
});
