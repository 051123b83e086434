import { fsyncSync } from 'node:fs';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { syncTree } from './data-dir.ts';

/**
 * PGlite on a folder, with Postgres's own durability: a commit is answered only once its WAL is on
 * disk, and a checkpoint syncs the data files before it lets go of the WAL that covered them.
 *
 * PGlite starts Postgres with fsync off (`-F`), and its Node filesystem (Emscripten's NODEFS) has
 * no fsync: Postgres's fsync() reached a no-op, fdatasync() too. Measured with strace: 500
 * appends, not one fsync. So here Postgres runs with fsync on, syncs its WAL with fsync()
 * (`wal_sync_method=fsync`: Emscripten turns fdatasync() into a no-op it cannot reach, but fsync()
 * into the file system's stream operation), and that operation, which NODEFS leaves out, is
 * Node's fsync on the real file. Every place where Postgres syncs (the commit's WAL flush, a
 * checkpoint's data files and pg_control, a new WAL segment, renames and their folders, the data
 * folder after a crash) then reaches the disk, in Postgres's order: nothing here decides when.
 */
export async function createDurablePglite(dataDir: string): Promise<PGlite> {
  const db = await PGlite.create({ fs: new SyncingNodeFS(dataDir), startParams: [...DURABLE_START_PARAMS] } satisfies PGliteOptions);
  // A new folder is written by PGlite (initdb's files copied in) with no sync; older versions of
  // the suite wrote without any. Whatever is there goes to disk before anything is answered.
  await syncTree(dataDir);
  return db;
}

/** PGlite's own start parameters, less `-F` (fsync off), plus a WAL sync method that reaches the disk. */
export const DURABLE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((p) => p !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=fsync',
  // Postgres's defaults, spelled out: a torn page is rebuilt from the WAL after a power loss.
  '-c',
  'full_page_writes=on',
  '-c',
  'synchronous_commit=on',
];

interface NodeFsStream {
  nfd: number;
}
interface EmscriptenNodefs {
  stream_ops: { fsync?: (stream: NodeFsStream) => void };
  tryFSOperation<T>(f: () => T): T;
}

/** PGlite's NodeFS, whose streams can be synced (the operation Emscripten's NODEFS leaves out). */
class SyncingNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = [
      (mod: { FS: { filesystems: { NODEFS: EmscriptenNodefs } } }) => {
        const nodefs = mod.FS.filesystems.NODEFS;
        // Errors become the errno Postgres sees (it PANICs on a failed WAL sync, as it should).
        nodefs.stream_ops.fsync = (stream) => nodefs.tryFSOperation(() => fsyncSync(stream.nfd));
      },
      ...((emscriptenOpts.preRun as unknown[] | undefined) ?? []),
    ];
    return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts };
  }
}
