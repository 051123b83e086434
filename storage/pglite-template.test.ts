import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryPglite, keepMigrated, templatePath } from './pglite-template.ts';

describe('an in-memory PGlite from the kept copy of a fresh database', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'pglite-template-'));
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('keeps the copy on the first start and starts the next from it, with nothing the first one wrote', async () => {
    const path = await templatePath(folder);
    expect(path).toBeDefined();
    const first = await createMemoryPglite(folder);
    await first.db.exec('create table written_by_the_first (n int); insert into written_by_the_first values (1)');
    const kept = await readFile(path as string);
    expect(kept.length).toBeGreaterThan(1_000_000);
    const second = await createMemoryPglite(folder);
    const { rows } = await second.db.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'written_by_the_first'");
    expect(rows[0]?.n).toBe(0);
    expect((await second.db.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    await Promise.all([first.db.close(), second.db.close()]);
  });

  it('starts fresh from a copy that cannot be loaded, and replaces it', async () => {
    const path = (await templatePath(folder)) as string;
    await writeFile(path, 'not a database');
    const { db } = await createMemoryPglite(folder);
    expect((await db.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    await db.close();
    expect((await readFile(path)).length).toBeGreaterThan(1_000_000);
  });
});

describe('an in-memory PGlite from the kept copy of a migrated database', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'pglite-migrated-'));
  afterAll(() => rm(folder, { recursive: true, force: true }));
  const digest = (n: number) => n.toString(16).padStart(32, '0');

  it('loads the copy kept for the same digest, with what the migration wrote, and a fresh database for another digest', async () => {
    const first = await createMemoryPglite(folder, digest(1));
    expect(first.fromMigrated).toBe(false);
    await first.db.exec('create table migrated_in (n int); insert into migrated_in values (7)');
    await keepMigrated(first.db, digest(1), folder);
    // Written after the copy was kept: not in it.
    await first.db.exec('insert into migrated_in values (8)');
    const second = await createMemoryPglite(folder, digest(1));
    expect(second.fromMigrated).toBe(true);
    expect((await second.db.query<{ n: number }>('select n from migrated_in')).rows).toEqual([{ n: 7 }]);
    const other = await createMemoryPglite(folder, digest(2));
    expect(other.fromMigrated).toBe(false);
    expect((await other.db.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'migrated_in'")).rows[0]?.n).toBe(0);
    await Promise.all([first.db.close(), second.db.close(), other.db.close()]);
  });

  it('removes a migrated copy that cannot be loaded, and starts from the fresh one', async () => {
    const path = (await templatePath(folder, digest(3))) as string;
    await writeFile(path, 'not a database');
    const { db, fromMigrated } = await createMemoryPglite(folder, digest(3));
    expect(fromMigrated).toBe(false);
    expect((await db.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    await db.close();
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps at most six migrated copies, the most recently used', async () => {
    // Thirteen older copies (their contents do not matter here), each used a minute before the next.
    const start = Date.now() / 1000 - 3600;
    for (let n = 10; n < 23; n++) {
      const path = (await templatePath(folder, digest(n))) as string;
      await writeFile(path, 'an older copy');
      await utimes(path, start + n * 60, start + n * 60);
    }
    const { db } = await createMemoryPglite(folder);
    await keepMigrated(db, digest(23), folder);
    await db.close();
    const names = (await readdir(folder)).filter((name) => name.startsWith('suite-pglite-migrated-'));
    expect(names).toHaveLength(6);
    expect(names.some((name) => name.endsWith(`${digest(23)}.tar`))).toBe(true);
    expect(names.some((name) => name.endsWith(`${digest(10)}.tar`))).toBe(false);
  });

  it('keeps nothing under a name that is not a digest', async () => {
    expect(await templatePath(folder, '../escape')).toBeUndefined();
  });
});
