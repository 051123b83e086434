import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir.ts';

describe('the PGlite data folder lock', () => {
  let parent: string;
  let dbPath: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'suite-datadir-'));
    dbPath = join(parent, 'nested', 'db');
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  it('creates the folder owner-only and records the owning pid', async () => {
    const unlock = await lockDataDir(dbPath);
    expect((await stat(dbPath)).mode & 0o777).toBe(0o700);
    expect((await readFile(join(dbPath, 'suite.lock'), 'utf8')).trim()).toBe(String(process.pid));
    await unlock();
  });

  it('refuses a second lock while the first is held, and grants it after release', async () => {
    const unlock = await lockDataDir(dbPath);
    await expect(lockDataDir(dbPath)).rejects.toMatchObject({ code: 'DATABASE_IN_USE' });
    await unlock();
    await unlock();
    const again = await lockDataDir(dbPath);
    await again();
  });

  it('refuses a folder locked by another live process', async () => {
    const first = await lockDataDir(dbPath);
    await first();
    // The parent of this test process is alive and is not us.
    await writeFile(join(dbPath, 'suite.lock'), `${process.ppid}\n`);
    await expect(lockDataDir(dbPath)).rejects.toMatchObject({
      code: 'DATABASE_IN_USE',
      message: expect.stringContaining(`process ${process.ppid}`),
    });
  });

  it('takes over a lock left by a process that is gone', async () => {
    const first = await lockDataDir(dbPath);
    await first();
    await writeFile(join(dbPath, 'suite.lock'), '99999999\n');
    const unlock = await lockDataDir(dbPath);
    expect((await readFile(join(dbPath, 'suite.lock'), 'utf8')).trim()).toBe(String(process.pid));
    await unlock();
  });
});
