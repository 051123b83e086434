import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type DatabasePool } from 'slonik';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from './open.ts';

/**
 * The embedded default sized for one machine (docs/PERFORMANCE.md, "Memory of the embedded
 * default"): the settings its Postgres runs with, the processes it does not start, and a pool that
 * holds at most four backends under load.
 */
const NO_MIGRATIONS = '/nonexistent/suite-migrations';
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

async function newDbPath(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'suite-embedded-sizing-'));
  folders.push(folder);
  return join(folder, 'database');
}

/** The pool's own connections: client backends of the suite's user, this query's included. */
const clientBackends = sql.unsafe`SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = current_user`;

/** The most client backends seen while `queries` queries that each hold a connection 100 ms run at once. */
async function mostBackendsUnder(pool: DatabasePool, queries: number): Promise<number> {
  const seen = await Promise.all(Array.from({ length: queries }, () =>
    pool.oneFirst(sql.unsafe`SELECT (${clientBackends}) FROM pg_sleep(0.1)`) as Promise<number>));
  return Math.max(...seen);
}

describe.skipIf(process.platform === 'win32')('the embedded Postgres, sized for one machine', () => {
  it('runs with 32 MB of shared buffers, no I/O worker processes and no logical replication launcher', async () => {
    const storage = await openStorage({ dbPath: await newDbPath(), migrationsDir: NO_MIGRATIONS });
    try {
      const settings = await storage.pool.any(sql.unsafe`
        SELECT name, current_setting(name) AS value FROM unnest(ARRAY['shared_buffers', 'io_method', 'max_logical_replication_workers']) AS name ORDER BY name`);
      expect(settings).toEqual([
        { name: 'io_method', value: 'sync' },
        { name: 'max_logical_replication_workers', value: '0' },
        { name: 'shared_buffers', value: '32MB' },
      ]);
      const types = await storage.pool.anyFirst(sql.unsafe`SELECT DISTINCT backend_type FROM pg_stat_activity ORDER BY 1`);
      expect(types).not.toContain('io worker');
      expect(types).not.toContain('logical replication launcher');
      // Still there: what durability and upkeep need.
      expect(types).toEqual(expect.arrayContaining(['checkpointer', 'walwriter', 'autovacuum launcher']));
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('opens at most four connections under load', async () => {
    const storage = await openStorage({ dbPath: await newDbPath(), migrationsDir: NO_MIGRATIONS });
    try {
      expect(await mostBackendsUnder(storage.pool, 24)).toBe(4);
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('takes another pool size when one is given (SUITE_DATABASE_POOL_SIZE)', async () => {
    const storage = await openStorage({ dbPath: await newDbPath(), migrationsDir: NO_MIGRATIONS, poolSize: 2 });
    try {
      expect(await mostBackendsUnder(storage.pool, 12)).toBe(2);
    } finally {
      await storage.close();
    }
  }, 60_000);
});
