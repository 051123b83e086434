import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { afterAll, describe, expect, it } from 'vitest';
import type { StorageError } from './errors.ts';
import { openStorage } from './open.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The embedded Postgres kept up by its supervisor (embedded-supervisor.ts): a kill -9 of its
 * postmaster is followed by a restart on the same cluster, and the pool serves again by itself;
 * a server that cannot come back is given up on, once, with a message that says why.
 */
const NO_MIGRATIONS = '/nonexistent/suite-migrations';
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

async function newDbPath(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'suite-supervised-pg-'));
  folders.push(folder);
  return join(folder, 'database');
}

const postmasterPid = async (dbPath: string) => Number((await readFile(join(dbPath, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

/** Retries `work` until it succeeds: the pool answers each try at once (a refusal or the result). */
async function firstSuccess<T>(work: () => Promise<T>, tries: number): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      return await work();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw last;
}

describe.skipIf(process.platform === 'win32')('the supervised embedded Postgres', () => {
  it('restarts after a kill -9 of its postmaster: the pool serves again by itself and every earlier commit is there', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const dbPath = await newDbPath();
    const gaveUp: StorageError[] = [];
    const storage = await openStorage({
      dbPath,
      migrationsDir: NO_MIGRATIONS,
      embeddedRestart: { attempts: 5, windowMs: 60_000, onGiveUp: (e) => gaveUp.push(e) },
    });
    try {
      await storage.pool.query(sql.unsafe`CREATE TABLE kept (v int)`);
      await storage.pool.query(sql.unsafe`INSERT INTO kept VALUES (1)`);
      const before = await postmasterPid(dbPath);
      process.kill(before, 'SIGKILL');
      // Its backends outlive it for a moment: wait until the death is seen (a query refused).
      for (
        let i = 0;
        i < 600 &&
        (await storage.pool.query(sql.unsafe`SELECT 1`).then(
          () => true,
          () => false,
        ));
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      // 600 tries of at most a refusal and 50 ms each: a server that never comes back fails here.
      await firstSuccess(() => storage.pool.query(sql.unsafe`INSERT INTO kept VALUES (2)`), 600);
      expect(await postmasterPid(dbPath)).not.toBe(before);
      expect(await storage.pool.anyFirst(sql.unsafe`SELECT v FROM kept ORDER BY v`)).toEqual([1, 2]);
      await firstSuccess(async () => expect(await storage.ping()).toBe(true), 100);
      expect(gaveUp).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('gives up once, naming the cluster and the attempts, when the server cannot be restarted', { timeout: machineTimeout(60_000) }, async () => {
    const dbPath = await newDbPath();
    let gaveUp!: (e: StorageError) => void;
    const given = new Promise<StorageError>((resolve) => (gaveUp = resolve));
    let calls = 0;
    const storage = await openStorage({
      dbPath,
      migrationsDir: NO_MIGRATIONS,
      embeddedRestart: {
        attempts: 2,
        windowMs: 30_000,
        onGiveUp: (e) => {
          calls++;
          gaveUp(e);
        },
      },
    });
    const cluster = join(dbPath, 'postgres');
    try {
      // Postgres refuses to start on a folder without PG_VERSION: every restart fails.
      await rename(join(cluster, 'PG_VERSION'), join(dbPath, 'PG_VERSION.aside'));
      process.kill(await postmasterPid(dbPath), 'SIGKILL');
      const error = await given;
      expect(error.code).toBe('DATABASE_UNAVAILABLE');
      expect(error.message).toContain(cluster);
      expect(error.message).toContain('2 attempts');
      expect(await storage.ping()).toBe(false);
      expect(calls).toBe(1);
    } finally {
      await rename(join(dbPath, 'PG_VERSION.aside'), join(cluster, 'PG_VERSION')).catch(() => undefined);
      await storage.close();
    }
  });
});
