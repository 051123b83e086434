/**
 * Child processes for the benchmarks: the same Node binary as this one (Node 24 from the npm
 * devDependency when started through `npm run bench`), optionally pinned to one CPU with taskset so
 * that the server and the load generator each get a core. Every child is tracked so that a
 * watchdog can end them all, by process id, if a run overstays its time bound.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const live = new Set<ChildProcess>();

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** CPU placement: the load generator (this process) on CPU 0, servers on CPU 1, when possible. */
export interface Pinning {
  readonly enabled: boolean;
  readonly note: string;
}

export function pinLoadGenerator(wanted: boolean): Pinning {
  if (!wanted) return { enabled: false, note: 'not pinned (--no-pin)' };
  if (availableParallelism() < 2) return { enabled: false, note: 'not pinned (fewer than 2 CPUs)' };
  if (!hasTaskset()) return { enabled: false, note: 'not pinned (taskset not found)' };
  // -a: every thread of this process, so the load generator stays on CPU 0.
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return { enabled: true, note: 'load generator pinned to CPU 0, server under test (all its threads and child processes) to CPU 1 (taskset)' };
}

/**
 * Undo pinLoadGenerator: every CPU of the machine again for this process (and so for the children it
 * starts later). `cpus()`, not `availableParallelism()`: the latter counts only the CPUs this process
 * may use, which is one while pinned.
 */
export function unpinLoadGenerator(p: Pinning): void {
  if (p.enabled) execFileSync('taskset', ['-a', '-p', '-c', `0-${cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
}

/**
 * The caller's environment without what would change the thing measured (SUITE_*, OTEL_*,
 * NODE_OPTIONS): a benchmark runs the defaults plus what it sets itself, and says what that is.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SUITE_|OTEL_)/.test(k) && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ...extra };
}

export interface Child {
  readonly proc: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` on stdout (else stderr); rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  pinCpu?: number | undefined;
  ipc?: boolean;
  nodeArgs?: string[];
  /** Where the child runs (default the repository root): another checkout, for a baseline of the same run. */
  cwd?: string;
}

/** Start `node [nodeArgs] script args` from the repository root (or `o.cwd`). */
export function spawnNode(script: string, args: string[], o: SpawnOptions): Child {
  return spawnProgram(process.execPath, [...(o.nodeArgs ?? []), script, ...args], o, script);
}

/** Start any program (e.g. nats-server) from the repository root, tracked like the Node children. */
export function spawnProgram(program: string, argv: string[], o: SpawnOptions, label = program): Child {
  const [cmd, args] = o.pinCpu === undefined ? [program, argv] : ['taskset', ['-c', String(o.pinCpu), program, ...argv]];
  const proc = spawn(cmd, args, {
    cwd: o.cwd ?? REPO_ROOT,
    env: o.env,
    stdio: o.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  let out = '';
  let err = '';
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<void>((done) =>
    proc.once('exit', () => {
      live.delete(proc);
      done();
    }),
  );

  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolveMatch, reject) => {
        const check = (): boolean => {
          const m = out.match(pattern) ?? err.match(pattern);
          if (m) finish(() => resolveMatch(m));
          return m !== null;
        };
        const onExit = () => finish(() => reject(new Error(`${label} exited before printing ${pattern}\n${err.slice(-2000)}`)));
        const timer = setTimeout(() => finish(() => reject(new Error(`${label}: no ${pattern} within ${timeoutMs} ms\n${err.slice(-2000)}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          proc.stdout?.off('data', check);
          proc.stderr?.off('data', check);
          proc.off('exit', onExit);
          f();
        };
        if (check()) return;
        proc.stdout?.on('data', check);
        proc.stderr?.on('data', check);
        proc.once('exit', onExit);
      });
    },
    async stop(graceMs = 15_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Kill every child still running (by its own process id): the watchdog's last resort. */
export function killAllChildren(): void {
  for (const proc of live) proc.kill('SIGKILL');
}
