import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryPglite, templatePath } from './pglite-template.ts';

describe('an in-memory PGlite from the kept copy of a fresh database', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'pglite-template-'));
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('keeps the copy on the first start and starts the next from it, with nothing the first one wrote', async () => {
    const path = await templatePath(folder);
    expect(path).toBeDefined();
    const first = await createMemoryPglite(folder);
    await first.exec('create table written_by_the_first (n int); insert into written_by_the_first values (1)');
    const kept = await readFile(path as string);
    expect(kept.length).toBeGreaterThan(1_000_000);
    const second = await createMemoryPglite(folder);
    const { rows } = await second.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'written_by_the_first'");
    expect(rows[0]?.n).toBe(0);
    expect((await second.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    await Promise.all([first.close(), second.close()]);
  });

  it('starts fresh from a copy that cannot be loaded, and replaces it', async () => {
    const path = (await templatePath(folder)) as string;
    await writeFile(path, 'not a database');
    const db = await createMemoryPglite(folder);
    expect((await db.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    await db.close();
    expect((await readFile(path)).length).toBeGreaterThan(1_000_000);
  });
});
