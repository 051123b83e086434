/**
 * What the machine is, printed at the top of every run: figures mean nothing without it. Also how
 * busy the CPUs were just before the run (other work on a shared machine skews every number).
 */
import { cpus, totalmem, platform, release, arch, loadavg, availableParallelism } from 'node:os';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './child.ts';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
  loadavg: string;
  busyBeforePct: number | undefined;
  code: string;
}

/** Which code was measured: the commit, and whether the working tree differed from it. */
function codeVersion(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain').length > 0 ? `${commit} plus uncommitted changes` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function osName(): Promise<string> {
  try {
    const text = await readFile('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1];
    if (pretty) return `${pretty} (${platform()} ${release()} ${arch()})`;
  } catch {
    // not Linux, or no os-release: the kernel name will do
  }
  return `${platform()} ${release()} ${arch()}`;
}

/** Share of CPU time spent busy over `ms`, from /proc/stat (Linux only). */
async function cpuBusyPct(ms: number): Promise<number | undefined> {
  const sample = async (): Promise<[number, number] | undefined> => {
    try {
      const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
      const f = line.trim().split(/\s+/).slice(1).map(Number);
      const idle = (f[3] ?? 0) + (f[4] ?? 0);
      return [f.reduce((a, b) => a + b, 0), idle];
    } catch {
      return undefined;
    }
  };
  const a = await sample();
  await new Promise((r) => setTimeout(r, ms));
  const b = await sample();
  if (!a || !b || b[0] === a[0]) return undefined;
  return Math.round((1 - (b[1] - a[1]) / (b[0] - a[0])) * 100);
}

export async function describeMachine(): Promise<Machine> {
  const list = cpus();
  return {
    cpu: `${list[0]?.model.trim() ?? 'unknown'}${list[0]?.speed ? ` @ ${list[0].speed} MHz` : ''}`,
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: await osName(),
    date: new Date().toISOString(),
    loadavg: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    busyBeforePct: await cpuBusyPct(1000),
    code: codeVersion(),
  };
}

export function machineMarkdown(m: Machine): string {
  return [
    '| machine | |',
    '|---|---|',
    `| CPU | ${m.cpu} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| Node | ${m.node} |`,
    `| OS | ${m.os} |`,
    `| date | ${m.date} |`,
    `| code | ${m.code} |`,
    `| load average (1/5/15 min) at start | ${m.loadavg} |`,
    `| CPU busy in the second before the run | ${m.busyBeforePct === undefined ? 'unknown' : `${m.busyBeforePct}%`} |`,
  ].join('\n');
}

if (import.meta.main) process.stdout.write(`${machineMarkdown(await describeMachine())}\n`);
