import { readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * An in-memory PGlite that starts from a kept copy instead of running initdb and the migrations
 * again. initdb is most of what PGlite.create costs (measured 1.2–1.9 s against 0.27–0.31 s from a
 * copy, load ~7, 2 cores) and the migrations most of the rest (about 2 s on a quiet machine), and
 * every in-memory suite pays both: `suite run all` without a data folder, and each test file that
 * starts a suite. Two kinds of copy, each PGlite's own `dumpDataDir`, kept in the temporary folder
 * under a name that changes with the PGlite build, written whole before it is renamed into place,
 * and ignored (then replaced) when it cannot be loaded:
 * - a freshly initialised database nothing has written to;
 * - a database just migrated, named by the digest of its migrations (migrate.ts migrationsDigest),
 *   so that a changed or added migration never loads an old copy. The migrations write no secret and
 *   nothing random (one fixed row), so a copy holds nothing one start should not share with another.
 */
export interface MemoryPglite {
  readonly db: PGlite;
  /** It was loaded from the kept copy of a database migrated to the digest asked for. */
  readonly fromMigrated: boolean;
}

const MIGRATED_PREFIX = 'suite-pglite-migrated-';
/** Migrated copies kept per user (each some 40 MB): one per set of migrations in use, the suite's and tests' own. */
const MIGRATED_KEPT = 6;

export async function createMemoryPglite(folder: string = tmpdir(), migrated?: string): Promise<MemoryPglite> {
  if (migrated !== undefined) {
    const db = await loadKept(await templatePath(folder, migrated));
    if (db !== undefined) return { db, fromMigrated: true };
  }
  const path = await templatePath(folder);
  const kept = await loadKept(path);
  if (kept !== undefined) return { db: kept, fromMigrated: false };
  const db = await PGlite.create({});
  if (path !== undefined) await keepCopy(db, path).catch(() => undefined);
  return { db, fromMigrated: false };
}

/**
 * Keep a copy of `db`, which was just migrated to `migrated` and holds nothing else, for the next
 * start; the oldest migrated copies beyond MIGRATED_KEPT are removed. Best effort: the caller goes on
 * whatever happens here.
 */
export async function keepMigrated(db: PGlite, migrated: string, folder: string = tmpdir()): Promise<void> {
  const path = await templatePath(folder, migrated);
  if (path === undefined) return;
  // The copy is of the files: what the migrations wrote is flushed to them first.
  await db.exec('CHECKPOINT');
  await keepCopy(db, path);
  await pruneMigrated(folder, path);
}

/**
 * A copy's file: one per PGlite build (its version and the sizes of its two WebAssembly files), and
 * for a migrated copy one per digest of its migrations.
 */
export async function templatePath(folder: string, migrated?: string): Promise<string | undefined> {
  if (migrated !== undefined && !/^[0-9a-f]{16,64}$/.test(migrated)) return undefined;
  try {
    const dist = fileURLToPath(new URL('.', import.meta.resolve('@electric-sql/pglite')));
    const pkg = JSON.parse(await readFile(join(dist, '..', 'package.json'), 'utf8')) as { version?: string };
    const [wasm, initdb] = await Promise.all([stat(join(dist, 'pglite.wasm')), stat(join(dist, 'initdb.wasm'))]);
    const build = `${pkg.version}-${wasm.size}-${initdb.size}-${process.getuid?.() ?? 0}`;
    return join(folder, migrated === undefined ? `suite-pglite-initdb-${build}.tar` : `${MIGRATED_PREFIX}${build}-${migrated}.tar`);
  } catch {
    return undefined;
  }
}

/** The kept copy at `path`, loaded; a copy that cannot be loaded is removed (and made again). */
async function loadKept(path: string | undefined): Promise<PGlite | undefined> {
  if (path === undefined) return undefined;
  const bytes = await readFile(path).catch(() => undefined);
  if (bytes === undefined) return undefined;
  try {
    const db = await PGlite.create({ loadDataDir: new Blob([bytes]) });
    // In use: the pruning of migrated copies keeps the most recently used.
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined);
    return db;
  } catch {
    await rm(path, { force: true });
    return undefined;
  }
}

/** Dump the database and put it in place atomically, so a reader never sees half a file. */
async function keepCopy(db: PGlite, path: string): Promise<void> {
  const dump = await db.dumpDataDir('none');
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

async function pruneMigrated(folder: string, kept: string): Promise<void> {
  const uid = `-${process.getuid?.() ?? 0}-`;
  const names = (await readdir(folder)).filter((name) => name.startsWith(MIGRATED_PREFIX) && name.endsWith('.tar') && name.includes(uid));
  const dated = await Promise.all(
    names.map(async (name) => ({ path: join(folder, name), used: (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const old = dated.filter((d) => d.path !== kept).sort((a, b) => b.used - a.used);
  for (const d of old.slice(MIGRATED_KEPT - 1)) await rm(d.path, { force: true });
}
