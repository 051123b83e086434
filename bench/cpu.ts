/**
 * Where the CPU went, from Linux /proc (elsewhere every figure is 0 or "unknown"): how much the
 * server under test used (its whole process tree: the embedded suite runs its database in child
 * processes), split per thread and child, and how much everything else on the machine used meanwhile.
 * On a shared machine, a figure measured beside someone else's load is suspect; this says so.
 */
import { readFile, readdir } from 'node:fs/promises';

const TICKS_PER_SECOND = 100;

async function stat(path: string): Promise<{ name: string; ppid: number; ticks: number } | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined; // gone, or not Linux
  }
}

/** Busy clock ticks of the whole machine so far, all CPUs. */
async function machineBusyTicks(): Promise<number> {
  try {
    const f = ((await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    return f.reduce((a, b) => a + b, 0) - (f[3] ?? 0) - (f[4] ?? 0);
  } catch {
    return 0;
  }
}

/** `root` and all its descendants. */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  try {
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const s = await stat(`/proc/${entry}/stat`);
      if (s) parents.set(Number(entry), s.ppid);
    }
  } catch {
    return [root];
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

async function label(pid: number, root: number): Promise<string> {
  if (pid === root) return '';
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (cmdline.includes('pglite')) return 'PGlite process';
  // The server (its binary's path) and its processes (`postgres: <role> ...`).
  return /(^|\/)postgres[\0: ]/.test(cmdline) ? 'Postgres processes' : `child ${pid}`;
}

/** Ticks per part of the tree of `root`: its threads by name, each child process as a whole. */
async function breakdown(root: number): Promise<Map<string, number>> {
  const parts = new Map<string, number>();
  for (const pid of await processTree(root)) {
    const name = await label(pid, root);
    if (name !== '') {
      parts.set(name, (parts.get(name) ?? 0) + ((await stat(`/proc/${pid}/stat`))?.ticks ?? 0));
      continue;
    }
    for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
      const s = await stat(`/proc/${pid}/task/${tid}/stat`);
      if (s) parts.set(s.name, (parts.get(s.name) ?? 0) + s.ticks);
    }
  }
  return parts;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

export interface CpuObservation<T> {
  result: T;
  /** CPU used meanwhile by everything but this process and the server's tree, % of one core. */
  foreignCorePct: number;
  /** The server's CPU per thread name (and per child process), % of one core. */
  server: Record<string, number>;
  /** This process's CPU meanwhile (the load generator, when it runs in-process), % of one core. */
  selfCorePct: number;
}

/** Run `work` while watching the CPU of `serverPid`'s process tree, this process and the machine. */
export async function observeCpu<T>(serverPid: number, work: () => Promise<T>): Promise<CpuObservation<T>> {
  const self = async () => (await stat(`/proc/${process.pid}/stat`))?.ticks ?? 0;
  const [m0, s0, b0, t0] = [await machineBusyTicks(), await self(), await breakdown(serverPid), performance.now()];
  const result = await work();
  const [m1, s1, b1, t1] = [await machineBusyTicks(), await self(), await breakdown(serverPid), performance.now()];
  const pct = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / ((t1 - t0) / 1000)) * 100);
  const server: Record<string, number> = {};
  for (const [name, ticks] of b1) server[name] = pct(ticks - (b0.get(name) ?? 0));
  const foreign = m1 - m0 - (s1 - s0) - (sum(b1) - sum(b0));
  return { result, foreignCorePct: pct(Math.max(0, foreign)), server, selfCorePct: pct(s1 - s0) };
}

/** CPU seconds used so far by `pid`'s whole process tree (its threads and every child process). */
export async function treeCpuSeconds(pid: number): Promise<number> {
  return sum(await breakdown(pid)) / TICKS_PER_SECOND;
}

/**
 * Wait until `pid`'s tree is nearly idle (under 5% of a core over 500 ms), at most `maxMs`: work
 * queued by one measurement (the audit backlog) must not run during the next. Returns the wait.
 */
export async function waitIdle(pid: number, maxMs: number): Promise<number> {
  const start = performance.now();
  let before = sum(await breakdown(pid));
  while (performance.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 500));
    const now = sum(await breakdown(pid));
    if ((now - before) / TICKS_PER_SECOND < 0.025) break;
    before = now;
  }
  return Math.round(performance.now() - start);
}

/**
 * The CPU seconds `pid`'s tree uses from now until it is nearly idle (as `waitIdle`): the work a
 * load left behind (the audit backlog, the log's rounds), charged to that load by whoever measured it
 * (bench/cpu-ratio-rounds.ts) rather than moved out of every window uncharged. The last idle interval
 * is not counted.
 */
export async function cpuUntilIdle(pid: number, maxMs: number): Promise<{ cpuSeconds: number; waitedMs: number }> {
  const start = performance.now();
  const first = sum(await breakdown(pid));
  let before = first;
  while (performance.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 500));
    const now = sum(await breakdown(pid));
    if ((now - before) / TICKS_PER_SECOND < 0.025) break;
    before = now;
  }
  return { cpuSeconds: (before - first) / TICKS_PER_SECOND, waitedMs: Math.round(performance.now() - start) };
}

/**
 * Before a retry: wait (at most `maxMs`) for `serverPid` to go idle and then for other processes
 * to use under `limitPct` of a core over one second. Returns the last foreign figure seen.
 */
export async function waitForQuiet(serverPid: number, limitPct: number, maxMs: number): Promise<number> {
  const start = performance.now();
  await waitIdle(serverPid, maxMs);
  let foreign = Number.POSITIVE_INFINITY;
  while (performance.now() - start < maxMs) {
    foreign = (await observeCpu(serverPid, () => new Promise((r) => setTimeout(r, 1000)))).foreignCorePct;
    if (foreign <= limitPct) break;
  }
  return foreign;
}
