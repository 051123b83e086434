import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type DatabasePool } from 'slonik';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from './data-dir.ts';
import { openStorage } from './open.ts';
import { postgresBinaries } from './postgres-binaries.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The embedded default's own Postgres server (embedded-postgres.ts): its folder, its lifetime tied
 * to the suite's, and the folders earlier versions left. On a machine that cannot run it (no
 * binaries for it; root without user namespaces) storage falls back to PGlite, and these tests
 * would fail: the suite's supported machines run it, as root (CI) or not.
 */
const NO_MIGRATIONS = '/nonexistent/suite-migrations';
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

async function newDbPath(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'suite-embedded-pg-'));
  folders.push(folder);
  return join(folder, 'database');
}

const postmasterPid = async (dbPath: string) => Number((await readFile(join(dbPath, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(process.platform === 'win32')('the embedded Postgres', () => {
  it('keeps its data across a restart, in an owner-only folder that a second storage cannot open meanwhile', { timeout: machineTimeout(60_000) }, async () => {
    const dbPath = await newDbPath();
    const first = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
    try {
      expect(first.kind).toBe('postgres');
      await first.pool.query(sql.unsafe`CREATE TABLE kept (v text)`);
      await first.pool.query(sql.unsafe`INSERT INTO kept VALUES ('acknowledged')`);
      expect((await stat(dbPath)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dbPath, 'postgres'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dbPath, 'postgres-password'))).mode & 0o777).toBe(0o600);
      await expect(openStorage({ dbPath, migrationsDir: NO_MIGRATIONS })).rejects.toMatchObject({ code: 'DATABASE_IN_USE' });
    } finally {
      await first.close();
    }
    const pid = await postmasterPid(dbPath).catch(() => 0);
    expect(pid === 0 || !isAlive(pid)).toBe(true);

    const second = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
    try {
      expect(await second.pool.oneFirst(sql.unsafe`SELECT v FROM kept`)).toBe('acknowledged');
      // Its settings: a commit is answered once its WAL is on disk.
      const settings = await second.pool.anyFirst(
        sql.unsafe`SELECT setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')`,
      );
      expect(settings).toEqual(['on', 'on', 'on']);
    } finally {
      await second.close();
    }
  });

  it('stops its server when the process that opened it is killed, and the next start opens the folder', { timeout: machineTimeout(60_000) }, async () => {
    const dbPath = await newDbPath();
    const script = join(dbPath, '..', 'open-and-hang.mjs');
    await writeFile(
      script,
      `import { openStorage } from ${JSON.stringify(new URL('./open.ts', import.meta.url).href)};
       await openStorage({ dbPath: ${JSON.stringify(dbPath)}, migrationsDir: ${JSON.stringify(NO_MIGRATIONS)} });
       console.log('open');
       setInterval(() => {}, 1_000);`,
    );
    const opener = spawn(process.execPath, [script], { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    await once(opener.stdout, 'data');
    const server = await postmasterPid(dbPath);
    expect(isAlive(server)).toBe(true);
    opener.kill('SIGKILL');
    await once(opener, 'exit');
    // Told by the kernel that its parent died (Linux); elsewhere the next start stops it (below).
    if (process.platform === 'linux') await until(() => !isAlive(server), 30_000, 'the server stops after its parent is killed');
    const reopened = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
    await reopened.close();
  });

  it('stops a server that an earlier run left on its folder before starting its own', { timeout: machineTimeout(90_000) }, async () => {
    const dbPath = await newDbPath();
    const made = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
    await made.close();
    // An orphan: the server started on the cluster with nothing watching it, its suite gone.
    const found = await postgresBinaries();
    if (!found.ok) throw new Error(found.reason);
    const { binaries } = found;
    const socketDir = join(dbPath, '..', 'orphan');
    await mkdir(socketDir, { mode: 0o700 });
    const [program, ...args] = [
      ...binaries.prefix,
      binaries.postgres,
      '-D',
      join(dbPath, 'postgres'),
      '-c',
      'listen_addresses=',
      '-c',
      `unix_socket_directories=${socketDir}`,
    ] as unknown as [string, ...string[]];
    const orphan = spawn(program, args, { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' } });
    try {
      await until(async () => (await postmasterPid(dbPath).catch(() => 0)) === orphan.pid, 30_000, 'the orphan server starts');
      const storage = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
      try {
        expect(orphan.exitCode !== null || orphan.signalCode !== null).toBe(true);
        expect(await postmasterPid(dbPath)).not.toBe(orphan.pid);
      } finally {
        await storage.close();
      }
    } finally {
      orphan.kill('SIGKILL');
    }
  });

  it('leaves a PGlite data folder of an earlier version on PGlite', { timeout: machineTimeout(60_000) }, async () => {
    const dbPath = await newDbPath();
    const earlier = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS, embeddedEngine: 'pglite' });
    await earlier.pool.query(sql.unsafe`CREATE TABLE kept (v text)`);
    await earlier.pool.query(sql.unsafe`INSERT INTO kept VALUES ('from PGlite')`);
    await earlier.close();
    const now = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS });
    try {
      expect(now.kind).toBe('pglite');
      expect(await now.pool.oneFirst(sql.unsafe`SELECT v FROM kept`)).toBe('from PGlite');
    } finally {
      await now.close();
    }
  });
});

/** The pool's own connections: client backends of the suite's user, this query's included. */
const clientBackends = sql.unsafe`SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = current_user`;

/** The most client backends seen while `queries` queries that each hold a connection 100 ms run at once. */
async function mostBackendsUnder(pool: DatabasePool, queries: number): Promise<number> {
  const seen = await Promise.all(
    Array.from({ length: queries }, () => pool.oneFirst(sql.unsafe`SELECT (${clientBackends}) FROM pg_sleep(0.1)`) as Promise<number>),
  );
  return Math.max(...seen);
}

describe.skipIf(process.platform === 'win32')('the embedded Postgres, sized for one machine (docs/PERFORMANCE.md, "Memory of the embedded default")', () => {
  it('runs with 32 MB of shared buffers, no I/O worker processes and no logical replication launcher', { timeout: machineTimeout(60_000) }, async () => {
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
  });

  it('opens at most four connections under load', { timeout: machineTimeout(60_000) }, async () => {
    const storage = await openStorage({ dbPath: await newDbPath(), migrationsDir: NO_MIGRATIONS });
    try {
      expect(await mostBackendsUnder(storage.pool, 24)).toBe(4);
    } finally {
      await storage.close();
    }
  });

  it('takes another pool size when one is given (SUITE_DATABASE_POOL_SIZE)', { timeout: machineTimeout(60_000) }, async () => {
    const storage = await openStorage({ dbPath: await newDbPath(), migrationsDir: NO_MIGRATIONS, poolSize: 2 });
    try {
      expect(await mostBackendsUnder(storage.pool, 12)).toBe(2);
    } finally {
      await storage.close();
    }
  });
});
