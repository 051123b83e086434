import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { Type } from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { writeMigrations } from '../testing/storage.ts';
import type { StorageLogger } from './errors.ts';
import { openStorage } from './open.ts';
import { rowSchema } from './row-schema.ts';

/**
 * In-memory storage started from the kept copy of a database migrated to the same migrations
 * (pglite-template.ts): the second open of a set of migrations nobody opened before loads the copy
 * the first kept, and has what they made; a migration added afterwards is applied, not skipped.
 */
function openLog(): { logger: StorageLogger; opened: Array<Record<string, unknown>> } {
  const opened: Array<Record<string, unknown>> = [];
  const record = (fields: Record<string, unknown>, message: string) => {
    if (message === 'storage open') opened.push(fields);
  };
  return { logger: { info: record, warn: () => {}, error: () => {} }, opened };
}

const Names = rowSchema(Type.Object({ name: Type.String() }));

describe('in-memory storage from a kept migrated copy', async () => {
  // Unique content: no earlier run kept a copy for these migrations.
  const migrations = await writeMigrations({
    '001_first.sql': `-- ${randomBytes(8).toString('hex')}\ncreate table kept_first (n int); insert into kept_first values (1);`,
  });
  afterAll(() => migrations.remove());

  it('is made by the first open, loaded by the second with what the migrations wrote, and not loaded once a migration is added', async () => {
    const first = openLog();
    const a = await openStorage({ migrationsDir: migrations.dir, logger: first.logger });
    await a.pool.query(sql.unsafe`insert into kept_first values (2)`);
    await a.close();
    expect(first.opened).toEqual([expect.objectContaining({ kind: 'pglite', fromMigratedCopy: false })]);

    const second = openLog();
    const b = await openStorage({ migrationsDir: migrations.dir, logger: second.logger });
    expect(second.opened).toEqual([expect.objectContaining({ fromMigratedCopy: true })]);
    // What the migration wrote, not what the first storage wrote after it.
    expect(await b.pool.manyFirst(sql.type(rowSchema(Type.Object({ n: Type.Integer() })))`select n from kept_first`)).toEqual([1]);
    await b.close();

    await migrations.write('002_second.sql', 'create table kept_second (n int);');
    const third = openLog();
    const c = await openStorage({ migrationsDir: migrations.dir, logger: third.logger });
    expect(third.opened).toEqual([expect.objectContaining({ fromMigratedCopy: false })]);
    const tables = await c.pool.manyFirst(sql.type(Names)`select tablename as name from pg_tables where tablename like 'kept_%' order by 1`);
    expect(tables).toEqual(['kept_first', 'kept_second']);
    await c.close();
  });
});
