/**
 * Reads an strace log (`strace -f -y -o FILE`, see STRACE_ARGS) of a suite whose database runs in
 * its process tree (the embedded default: its own Postgres server, or PGlite), and says whether
 * what the database acknowledged was on disk first:
 *
 * - a commit's answer: a ReadyForQuery message ('Z', status idle: the transaction is over; a client
 *   takes a commit as done when it arrives) written to a socket by a process that answered a
 *   CommandComplete of INSERT, UPDATE, DELETE, MERGE or COPY in that transaction. Its commit record was written after the request
 *   arrived (the answering process's last read of its socket), so before the answer there must be
 *   a write to a WAL file after that read, then a sync of that file started after the write and
 *   finished before the answer. Any process may do either (a Postgres backend's commit is often
 *   written and synced by another's).
 * - a clean stop: the write of `global/pg_control` recording the shutdown checkpoint (state
 *   DB_SHUTDOWNED), once the database has answered. By then every file written under the data
 *   folder must have been synced, else the checkpoint lets go of the only other copy (the WAL).
 *   Except pg_subtrans, which Postgres rebuilds at every start and never syncs.
 */

/** The strace arguments that give the log this module reads. */
export const STRACE_ARGS: readonly string[] = [
  '-f',
  '-qq',
  '-y',
  '--seccomp-bpf',
  '-s',
  '128',
  '-e',
  'signal=none',
  '-e',
  'trace=read,recvfrom,write,sendto,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat',
];

export interface Violation {
  /** Line of the log (1-based) where the answer or the checkpoint was written. */
  line: number;
  /** Files written and not synced at that moment (empty for an answer that no sync preceded). */
  unsynced: string[];
}

export interface DurabilityReport {
  walWrites: number;
  walSyncs: number;
  /** Answers to a commit of a change, each checked. */
  commitAnswers: number;
  commitsUnsynced: Violation[];
  /** pg_control writes recording a shutdown checkpoint, each checked. */
  shutdowns: number;
  shutdownsUnsynced: Violation[];
}

const LINE = /^(\d+)\s+(?:<\.\.\. (\w+) resumed>(.*)|(\w+)\((.*))$/;
const FD_PATH = /^\d+<([^>]*)>/;
/** A ReadyForQuery message ending the data written, with its transaction status. */
const READY = /Z\\0\\0\\0\\5([ITE])"(?!\.\.\.)/;
/**
 * A CommandComplete message: 'C', a 4-byte length (its last byte escaped or not), the tag and its
 * row count ("UPDATE 3", "INSERT 0 3"): a change of no rows writes no WAL, so it has nothing to sync.
 */
const COMMAND_COMPLETE = /C\\0\\0\\0(?:\\[0-7]{1,3}|\\[a-z]|[^\\"])([A-Z]+)((?: \d+)*)\\0/g;
const CHANGES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);
const READS = new Set(['read', 'recvfrom']);
const WRITES = new Set(['write', 'sendto', 'pwrite64', 'writev', 'pwritev', 'pwritev2']);
const SYNCS = new Set(['fsync', 'fdatasync']);
/** ControlFileData.state (offset 16, after the system identifier and two version numbers). */
const STATE_OFFSET = 16;
const DB_SHUTDOWNED = 1;
/**
 * Files Postgres does not need after a crash, so never syncs: pg_subtrans (reset at every start),
 * the relation cache (pg_internal.init, rebuilt when missing), the server's pid and options files,
 * and the suite's lock.
 */
const NOT_DURABLE = /\/pg_subtrans\/|\/pg_internal\.init|\/postmaster\.(pid|opts)$|\/suite\.lock$/;

interface Call {
  tid: string;
  name: string;
  args: string;
  result: string;
  /** Line indexes of the call's start and end (the same unless strace split it). */
  entry: number;
  exit: number;
}

/** The report for the database files under `dataDir` (an absolute path). */
export function analyseTrace(log: string, dataDir: string): DurabilityReport {
  const root = dataDir.endsWith('/') ? dataDir : `${dataDir}/`;
  const isWal = (path: string) => path.startsWith(root) && path.includes('/pg_wal/');
  const report: DurabilityReport = { walWrites: 0, walSyncs: 0, commitAnswers: 0, commitsUnsynced: [], shutdowns: 0, shutdownsUnsynced: [] };
  const walWrites: Array<{ at: number; path: string }> = [];
  const walSyncs: Array<{ start: number; end: number; path: string }> = [];
  /** Each file written and not yet synced: the line of its last write. */
  const dirty = new Map<string, number>();
  const lastRead = new Map<string, number>();
  /** Processes whose transaction under way has changed something (a CommandComplete of a change). */
  const changed = new Set<string>();
  const unsynced = (before: number) =>
    [...dirty]
      .filter(([p, at]) => at < before && !NOT_DURABLE.test(p))
      .map(([p]) => p)
      .sort();

  const onCall = (c: Call): void => {
    const path = FD_PATH.exec(c.args)?.[1] ?? '';
    const ok = !/=\s*-1/.test(c.result);
    if (READS.has(c.name)) {
      if (path.startsWith('socket:') && ok) lastRead.set(c.tid, c.exit);
    } else if (SYNCS.has(c.name)) {
      if (!path.startsWith(root) || !/=\s*0\s*$/.test(c.result)) return;
      if ((dirty.get(path) ?? Number.POSITIVE_INFINITY) < c.entry) dirty.delete(path);
      if (isWal(path)) {
        walSyncs.push({ start: c.entry, end: c.exit, path });
        report.walSyncs++;
      }
    } else if (WRITES.has(c.name) && path.startsWith(root)) {
      dirty.set(path, c.exit);
      if (isWal(path)) {
        walWrites.push({ at: c.exit, path });
        report.walWrites++;
      }
      if (path.endsWith('/global/pg_control') && report.commitAnswers > 0 && controlState(c.args) === DB_SHUTDOWNED) {
        report.shutdowns++;
        const files = unsynced(c.entry).filter((p) => p !== path);
        if (files.length > 0) report.shutdownsUnsynced.push({ line: c.entry + 1, unsynced: files });
      }
    } else if (WRITES.has(c.name) && path.startsWith('socket:')) {
      for (const m of c.args.matchAll(COMMAND_COMPLETE)) {
        const rows = Number((m[2] ?? '').trim().split(' ').pop() || '1');
        if (CHANGES.has(m[1] as string) && rows > 0) changed.add(c.tid);
      }
      const status = READY.exec(c.args)?.[1];
      if (status === undefined || status === 'T') return;
      // Idle or failed: the transaction is over, and the next starts with nothing changed.
      const commit = changed.delete(c.tid) && status === 'I';
      if (!commit) return;
      report.commitAnswers++;
      const request = lastRead.get(c.tid) ?? -1;
      const synced = walSyncs.some((s) => s.end < c.entry && walWrites.some((w) => w.path === s.path && w.at > request && w.at < s.start));
      if (!synced) report.commitsUnsynced.push({ line: c.entry + 1, unsynced: [] });
    } else if (c.name.startsWith('rename') || c.name.startsWith('unlink')) {
      if (!/=\s*0\s*$/.test(c.result)) return;
      const [from, to] = [...c.args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((n) => n[1] as string);
      if (from === undefined) return;
      for (const [path, at] of [...dirty]) {
        const moved = movedTo(path, from, c.name.startsWith('rename') ? to : undefined);
        if (moved === undefined) continue;
        dirty.delete(path);
        if (moved !== null) dirty.set(moved, at);
      }
    }
  };

  const pending = new Map<string, { name: string; args: string; entry: number }>();
  log.split('\n').forEach((text, index) => {
    const m = LINE.exec(text);
    if (!m) return;
    const tid = m[1] as string;
    if (m[2] !== undefined) {
      const started = pending.get(tid);
      pending.delete(tid);
      if (started?.name === m[2]) onCall({ tid, ...started, result: m[3] ?? '', exit: index });
      return;
    }
    const rest = m[5] ?? '';
    const cut = rest.indexOf(' <unfinished ...>');
    if (cut >= 0) {
      pending.set(tid, { name: m[4] as string, args: rest.slice(0, cut), entry: index });
      return;
    }
    const eq = rest.lastIndexOf(') = ');
    onCall({ tid, name: m[4] as string, args: eq >= 0 ? rest.slice(0, eq) : rest, result: eq >= 0 ? rest.slice(eq + 1) : '', entry: index, exit: index });
  });
  return report;
}

/**
 * Where `path` is after `from` was renamed to `to` (or unlinked: null); undefined when `from` is
 * neither it nor a folder above it. Postgres names its files relative to its data folder, its
 * working directory: such a name stands for the file whose path ends with it.
 */
function movedTo(path: string, from: string, to: string | undefined): string | null | undefined {
  let base: string;
  if (from.startsWith('/')) base = '';
  else if (path.endsWith(`/${from}`)) base = path.slice(0, path.length - from.length);
  else if (path.includes(`/${from}/`)) base = path.slice(0, path.lastIndexOf(`/${from}/`) + 1);
  else return undefined;
  const old = base + from;
  if (path !== old && !path.startsWith(`${old}/`)) return undefined;
  if (to === undefined) return null;
  return (to.startsWith('/') ? to : base + to) + path.slice(old.length);
}

/** The state field of pg_control from a write's data as strace prints it (C escapes), if shown. */
function controlState(args: string): number | undefined {
  const literal = /^\d+<[^>]*>, "((?:[^"\\]|\\.)*)"/.exec(args)?.[1];
  if (literal === undefined) return undefined;
  const bytes = unescapeC(literal);
  return bytes.length >= STATE_OFFSET + 4 ? bytes.readInt32LE(STATE_OFFSET) : undefined;
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };

function unescapeC(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') {
      out.push(text.charCodeAt(i));
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1))?.[0];
    if (octal !== undefined) {
      out.push(parseInt(octal, 8));
      i += octal.length;
    } else if (text[i + 1] === 'x') {
      out.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      out.push(SIMPLE_ESCAPES[text[i + 1] as string] ?? text.charCodeAt(i + 1));
      i += 1;
    }
  }
  return Buffer.from(out);
}
