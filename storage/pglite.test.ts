import { performance } from 'node:perf_hooks';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { openStorage } from './open.ts';

const NO_MIGRATIONS = '/nonexistent/suite-migrations';

describe('PGlite storage', () => {
  it('keeps nothing after close when no data folder is given', async () => {
    const first = await openStorage({ migrationsDir: NO_MIGRATIONS });
    await first.pool.query(sql.unsafe`CREATE TABLE ephemeral (id int)`);
    await first.close();

    const second = await openStorage({ migrationsDir: NO_MIGRATIONS });
    try {
      expect(await second.pool.oneFirst(sql.unsafe`SELECT to_regclass('ephemeral') IS NULL`)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('makes its data folder owner-only and refuses a second storage on it while open', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'suite-pglite-'));
    const dbPath = join(parent, 'db');
    await mkdir(dbPath, { mode: 0o755 });
    await chmod(dbPath, 0o755);
    try {
      const storage = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS, embeddedEngine: 'pglite' });
      try {
        expect((await stat(dbPath)).mode & 0o777).toBe(0o700);
        // Two PGlites on one folder would corrupt it; PGlite itself does not prevent that.
        const second = openStorage({ dbPath, migrationsDir: NO_MIGRATIONS, embeddedEngine: 'pglite' });
        await expect(second).rejects.toMatchObject({ code: 'DATABASE_IN_USE' });
      } finally {
        await storage.close();
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('keeps the main event loop responsive while PGlite runs a heavy query', async () => {
    const storage = await openStorage({ migrationsDir: NO_MIGRATIONS });
    try {
      // How busy this thread's event loop was during the query, as a share of the time (Node's
      // event-loop utilisation): in the main thread the query blocks it throughout (close to 1); in
      // the child process the loop mostly waits. A share, not a time: a loaded machine slows both.
      const before = performance.eventLoopUtilization();
      await storage.pool.query(sql.unsafe`SELECT sum(length(md5(i::text))) FROM generate_series(1, 1500000) AS i`);
      expect(performance.eventLoopUtilization(before).utilization).toBeLessThan(0.5);
    } finally {
      await storage.close();
    }
  });

  it('leaves no process, socket or timer behind: a program that opens and closes it exits by itself', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'suite-exit-'));
    const script = join(folder, 'open-and-close.mjs');
    await writeFile(
      script,
      `import { openStorage } from ${JSON.stringify(new URL('./open.ts', import.meta.url).href)};
       import { sql } from ${JSON.stringify(import.meta.resolve('slonik'))};
       const storage = await openStorage({ migrationsDir: ${JSON.stringify(NO_MIGRATIONS)} });
       await storage.pool.query(sql.unsafe\`SELECT 1\`);
       await storage.close();
       console.log(JSON.stringify(process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap')));`,
    );
    // A clean NODE_OPTIONS: the test runner's own hooks have no business in the child.
    const env = { ...process.env, NODE_OPTIONS: '' };
    const run = promisify(execFile)(process.execPath, [script], { env, timeout: 25_000 });
    const { stdout } = await run.finally(() => rm(folder, { recursive: true, force: true }));
    expect(JSON.parse(stdout.trim())).toEqual([]);
  });

  it('closes PGlite and frees its data folder when the process that opened it is killed', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'suite-orphan-'));
    const dbPath = join(folder, 'db');
    const script = join(folder, 'open-and-hang.mjs');
    await writeFile(
      script,
      `import { openStorage } from ${JSON.stringify(new URL('./open.ts', import.meta.url).href)};
       await openStorage({ dbPath: ${JSON.stringify(dbPath)}, migrationsDir: ${JSON.stringify(NO_MIGRATIONS)}, embeddedEngine: 'pglite' });
       console.log('open');
       setInterval(() => {}, 1_000);`,
    );
    try {
      const parent = spawn(process.execPath, [script], { env: { ...process.env, NODE_OPTIONS: '' } });
      await once(parent.stdout, 'data');
      // The lock file names the PGlite process, the one that really has the files open.
      const pgliteProcess = Number((await readFile(join(dbPath, 'suite.lock'), 'utf8')).trim());
      parent.kill('SIGKILL');
      await once(parent, 'exit');
      await waitFor(async () => !isRunning(pgliteProcess) && !(await exists(join(dbPath, 'suite.lock'))), 15_000);
      const reopened = await openStorage({ dbPath, migrationsDir: NO_MIGRATIONS, embeddedEngine: 'pglite' });
      await reopened.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
