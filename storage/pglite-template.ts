import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * An in-memory PGlite that starts from a copy of a freshly initialised database instead of running
 * initdb again. initdb is most of what PGlite.create costs (measured 1.2–1.9 s against 0.27–0.31 s
 * from the copy, load ~7, 2 cores), and every in-memory suite pays it: `suite run all` without a data
 * folder, and each test file that starts a suite. The copy is PGlite's own `dumpDataDir` of a database
 * nothing has written to yet, kept in the temporary folder under a name that changes with the PGlite
 * build, written whole before it is renamed into place, and ignored (then replaced) when it cannot be
 * loaded. It holds no data: only what initdb makes.
 */
export async function createMemoryPglite(folder: string = tmpdir()): Promise<PGlite> {
  const path = await templatePath(folder);
  if (path !== undefined) {
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes !== undefined) {
      try {
        return await PGlite.create({ loadDataDir: new Blob([bytes]) });
      } catch {
        await rm(path, { force: true });
      }
    }
  }
  const db = await PGlite.create({});
  if (path !== undefined) await keepTemplate(db, path).catch(() => undefined);
  return db;
}

/** The copy's file: one per PGlite build (its version and the sizes of its two WebAssembly files). */
export async function templatePath(folder: string): Promise<string | undefined> {
  try {
    const dist = fileURLToPath(new URL('.', import.meta.resolve('@electric-sql/pglite')));
    const pkg = JSON.parse(await readFile(join(dist, '..', 'package.json'), 'utf8')) as { version?: string };
    const [wasm, initdb] = await Promise.all([stat(join(dist, 'pglite.wasm')), stat(join(dist, 'initdb.wasm'))]);
    const uid = process.getuid?.() ?? 0;
    return join(folder, `suite-pglite-initdb-${pkg.version}-${wasm.size}-${initdb.size}-${uid}.tar`);
  } catch {
    return undefined;
  }
}

/** Dump the untouched database and put it in place atomically, so a reader never sees half a file. */
async function keepTemplate(db: PGlite, path: string): Promise<void> {
  const dump = await db.dumpDataDir('none');
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}
