/**
 * The memory of a process tree, from Linux /proc (elsewhere: empty). PSS (proportional set size: a
 * page shared by N processes counts 1/N in each) is the figure that adds up over processes: the
 * Postgres processes share their buffers, which RSS would count once per process. Its split:
 * anonymous (heaps, stacks), file (program text and libraries, shared with every other process that
 * maps the same file: on a machine running other Node processes, the Node binary's pages are split
 * among them) and shared memory (Postgres's shared buffers and its other shared structures).
 */
import { readFile, readdir } from 'node:fs/promises';

export interface ProcessMemory {
  pid: number;
  /** What the process is: 'node' (the root), or a Postgres role ('postmaster', 'checkpointer', 'client backend', ...). */
  role: string;
  rssKb: number;
  pssKb: number;
  pssAnonKb: number;
  pssFileKb: number;
  pssShmemKb: number;
}

/** `roots` and all their descendants. */
export async function processTree(roots: readonly number[]): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (text !== '') parents.set(Number(entry), Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const all = [...roots];
  for (let i = 0; i < all.length; i++) for (const [pid, ppid] of parents) if (ppid === all[i]) all.push(pid);
  return all;
}

/**
 * A Postgres process's role from its title (`postgres: checkpointer`, `postgres: suite postgres
 * [local] idle` for a client's backend); the postmaster keeps its command line (the binary's path).
 */
export function roleOf(cmdline: string): string {
  const title = /^postgres: (.*)$/.exec(cmdline.replaceAll('\0', ' ').trim())?.[1];
  if (title !== undefined) {
    if (/\[local\]|\d+\.\d+\.\d+\.\d+\(\d+\)/.test(title)) return 'client backend';
    // Workers name their database ('autovacuum worker postgres') or their number ('io worker 2').
    return /^(autovacuum worker|parallel worker)\b/.exec(title)?.[0] ?? title.replace(/ \d+$/, '');
  }
  if (/(^|\/)postgres\0/.test(cmdline)) return 'postmaster';
  return /(^|\/)node\0/.test(cmdline) ? 'node' : (cmdline.split('\0')[0] ?? 'unknown');
}

const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);

/** Every live process of the trees of `roots`, with its memory (processes that exit meanwhile are left out). */
export async function treeMemory(roots: readonly number[]): Promise<ProcessMemory[]> {
  const found: ProcessMemory[] = [];
  for (const pid of await processTree(roots)) {
    const [text, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => ''),
      readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
    ]);
    if (text === '') continue;
    found.push({
      pid,
      role: roleOf(cmdline),
      rssKb: field(text, 'Rss'),
      pssKb: field(text, 'Pss'),
      pssAnonKb: field(text, 'Pss_Anon'),
      pssFileKb: field(text, 'Pss_File'),
      pssShmemKb: field(text, 'Pss_Shmem'),
    });
  }
  return found;
}

export interface Memory {
  rssMb: number;
  pssMb: number;
}

/** RSS and PSS summed over the trees of `roots`, in MB. */
export async function memoryOf(roots: readonly number[]): Promise<Memory> {
  const all = await treeMemory(roots);
  const mb = (kb: number) => Math.round(kb / 1024);
  return { rssMb: mb(all.reduce((a, p) => a + p.rssKb, 0)), pssMb: mb(all.reduce((a, p) => a + p.pssKb, 0)) };
}
