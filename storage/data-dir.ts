import { chmod, mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StorageError } from './errors.ts';

/**
 * The PGlite data folder: owner-only, and used by one storage at a time. PGlite itself does not
 * lock its folder (a second PGlite on the same files opens happily and corrupts them), so a lock
 * file holding the owner's pid guards it. A lock whose process is gone (a crash) is taken over.
 */
const LOCK_FILE = 'suite.lock';

/** Lock files this process holds: a pid match alone cannot tell "ours" from "reused after restart". */
const held = new Set<string>();

/** Create/tighten the folder and lock it; returns the release function (idempotent). */
export async function lockDataDir(dbPath: string): Promise<() => Promise<void>> {
  // Every record and tenant key hash lives here: owner-only, even when the folder already existed
  // with looser permissions (mkdir's mode does not apply to an existing folder, and umask may
  // loosen a new one).
  await mkdir(dbPath, { recursive: true, mode: 0o700 });
  await chmod(dbPath, 0o700);
  const lockPath = join(dbPath, LOCK_FILE);
  if (held.has(lockPath)) throw inUse(dbPath, process.pid);

  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      held.add(lockPath);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        held.delete(lockPath);
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (owner !== process.pid && isAlive(owner)) throw inUse(dbPath, owner);
      // Stale: its process is gone, or the pid is ours reused after a restart (we do not hold it).
      await rm(lockPath, { force: true });
    }
  }
  throw inUse(dbPath, Number.NaN);
}

/** Whether a process with this id exists (someone else's included). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dbPath: string, pid: number): StorageError {
  const who = Number.isNaN(pid) ? 'another process' : `process ${pid}`;
  return new StorageError(
    'DATABASE_IN_USE',
    `The data folder ${dbPath} is in use by ${who}. Stop it first; if no such process runs, ` + `delete ${join(dbPath, LOCK_FILE)}.`,
  );
}

/** fsync one file or folder (a folder: the names in it, after a create or a rename). */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync every file and folder under `dir` (folders after their entries). */
export async function syncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(path);
    else if (entry.isFile()) await syncPath(path);
  }
  await syncPath(dir);
}
