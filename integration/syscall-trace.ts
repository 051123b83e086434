/**
 * Reads an strace log (`strace -f -y -o FILE`, see STRACE_ARGS) of a suite whose database runs in
 * its process tree (the embedded default), and says whether what the database acknowledged was on
 * disk first:
 *
 * - an answer: a ReadyForQuery message ('Z', the end of every answer in the Postgres protocol; a
 *   client takes a commit as done when it arrives) written to a socket by the thread that writes
 *   the WAL. When it is sent, every WAL file written so far must have been synced since.
 * - a checkpoint: a write of `global/pg_control` once the database answers, other than the one
 *   that announces a shutdown (state DB_SHUTDOWNING, before the shutdown checkpoint's writes).
 *   When it is written, every file written under the data folder must have been synced since:
 *   the checkpoint it records lets go of the WAL that was the other copy of those writes. Except
 *   pg_subtrans, which Postgres rebuilds at every start and never syncs.
 *
 * A sync covers the writes made before it started (a write during a sync on another thread may
 * be missed), and a rename carries a file's unsynced writes to its new name.
 */

/** The strace arguments that give the log this module reads. */
export const STRACE_ARGS: readonly string[] = [
  '-f', '-qq', '-y', '--seccomp-bpf', '-s', '48', '-e', 'signal=none',
  '-e', 'trace=write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat',
];

export interface Violation {
  /** Line of the log (1-based) where the answer or the checkpoint was written. */
  line: number;
  /** Files written and not synced at that moment. */
  unsynced: string[];
}

export interface DurabilityReport {
  walWrites: number;
  walSyncs: number;
  answers: number;
  answersUnsynced: Violation[];
  checkpoints: number;
  checkpointsUnsynced: Violation[];
}

const CALL = /^(\d+)\s+(?:<\.\.\. (\w+) resumed>(.*)|(\w+)\((.*))$/;
const FD_PATH = /^\d+<([^>]*)>/;
const READY_FOR_QUERY = /Z\\0\\0\\0\\5[ITE]"(?!\.\.\.)/;
const WRITES = new Set(['write', 'pwrite64', 'writev', 'pwritev', 'pwritev2']);
const SYNCS = new Set(['fsync', 'fdatasync']);
/** ControlFileData.state (offset 16, after the system identifier and two version numbers). */
const STATE_OFFSET = 16;
const DB_SHUTDOWNING = 3;
const NOT_DURABLE = /\/pg_subtrans\//;

/** The report for the database files under `dataDir` (an absolute path). */
export function analyseTrace(log: string, dataDir: string): DurabilityReport {
  const root = dataDir.endsWith('/') ? dataDir : `${dataDir}/`;
  const isWal = (path: string) => path.includes('/pg_wal/');
  const lines = log.split('\n');
  // The database's thread: the one that writes WAL.
  const dbThreads = new Set<string>();
  for (const text of lines) {
    const m = CALL.exec(text);
    if (m?.[4] !== undefined && WRITES.has(m[4]) && isWal(FD_PATH.exec(m[5] ?? '')?.[1] ?? '') && (FD_PATH.exec(m[5] ?? '')?.[1] ?? '').startsWith(root)) dbThreads.add(m[1] as string);
  }

  /** Each file written and not yet synced: the sequence number of its last write. */
  const dirty = new Map<string, number>();
  /** Syncs under way per thread: the file and the sequence number when the sync started. */
  const syncing = new Map<string, { path: string; from: number }>();
  const report: DurabilityReport = { walWrites: 0, walSyncs: 0, answers: 0, answersUnsynced: [], checkpoints: 0, checkpointsUnsynced: [] };
  let seq = 0;
  const unsynced = (only: (path: string) => boolean) => [...dirty.keys()].filter(only).sort();
  const synced = (tid: string, result: string) => {
    const s = syncing.get(tid);
    syncing.delete(tid);
    if (s === undefined || !/=\s*0\s*$/.test(result)) return;
    if ((dirty.get(s.path) ?? 0) <= s.from) dirty.delete(s.path);
    if (isWal(s.path)) report.walSyncs++;
  };

  lines.forEach((text, index) => {
    const m = CALL.exec(text);
    if (!m) return;
    const tid = m[1] as string;
    seq++;
    if (m[2] !== undefined) {
      if (SYNCS.has(m[2])) synced(tid, m[3] ?? '');
      return;
    }
    const call = m[4] as string;
    const args = m[5] ?? '';
    const path = FD_PATH.exec(args)?.[1] ?? '';
    if (SYNCS.has(call)) {
      if (!path.startsWith(root)) return;
      syncing.set(tid, { path, from: seq });
      if (!args.includes('<unfinished ...>')) synced(tid, args);
      return;
    }
    if (WRITES.has(call)) {
      if (path.startsWith(root)) {
        dirty.set(path, seq);
        if (isWal(path)) report.walWrites++;
        if (path.endsWith('/global/pg_control') && report.answers > 0 && controlState(args) !== DB_SHUTDOWNING) {
          report.checkpoints++;
          const files = unsynced((p) => p !== path && !NOT_DURABLE.test(p));
          if (files.length > 0) report.checkpointsUnsynced.push({ line: index + 1, unsynced: files });
        }
      } else if (path.startsWith('socket:') && dbThreads.has(tid) && READY_FOR_QUERY.test(args)) {
        report.answers++;
        const files = unsynced(isWal);
        if (files.length > 0) report.answersUnsynced.push({ line: index + 1, unsynced: files });
      }
      return;
    }
    const names = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((n) => n[1] as string);
    if (call.startsWith('rename') && names.length === 2) {
      const [from, to] = names as [string, string];
      const last = dirty.get(from);
      dirty.delete(from);
      dirty.delete(to);
      if (last !== undefined) dirty.set(to, last);
    } else if (call.startsWith('unlink') && names.length === 1) {
      dirty.delete(names[0] as string);
    }
  });
  return report;
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
