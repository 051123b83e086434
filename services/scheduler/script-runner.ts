import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { AttemptResult } from './attempt.ts';

export interface ScriptRunnerOptions {
  /** `SCHEDULER_SCRIPT_ROOT`: scripts run only from inside it. */
  readonly root: string;
  /** Bytes of stdout and of stderr kept (for the hash); the rest is read and dropped. Default 64 KiB. */
  readonly maxOutputBytes?: number;
}

export interface ScriptRunner {
  /** Why `script` may not run (outside the root, missing, not a file), or undefined. */
  check(script: string): Promise<string | undefined>;
  run(task: { script?: string | undefined; args?: readonly string[] | undefined }, timeoutMs: number): Promise<AttemptResult>;
}

/**
 * Script tasks (spec, "Task definition"; issue 14). The script is resolved inside the root with
 * every symlink followed (realpath), and refused unless the resolved file is still inside it; the
 * resolved path is what runs, so a link changed after the check cannot lead out. Run without a shell,
 * with `args` as given, in a process group of its own that the timeout kills whole; a minimal
 * environment (PATH only: the suite's secrets stay in the suite).
 */
export async function createScriptRunner(o: ScriptRunnerOptions): Promise<ScriptRunner> {
  const root = await realpath(o.root);
  const cap = o.maxOutputBytes ?? 64 * 1024;

  const resolveInside = async (script: string): Promise<{ path: string } | { problem: string }> => {
    // The pure rules (no NUL, not absolute, no "..") were applied to the request (core/scheduling); again here, at the boundary.
    if (script.includes('\0') || script.startsWith('/') || script.split(/[\\/]/).includes('..'))
      return { problem: 'script must be a path inside the script root' };
    let real: string;
    try {
      real = await realpath(resolve(root, script));
    } catch {
      return { problem: 'script does not exist in the script root' };
    }
    if (real !== root && !real.startsWith(root + sep)) return { problem: 'script resolves outside the script root' };
    const info = await stat(real);
    if (!info.isFile()) return { problem: 'script is not a file' };
    return { path: real };
  };

  return {
    async check(script) {
      const r = await resolveInside(script);
      return 'problem' in r ? r.problem : undefined;
    },
    async run(task, timeoutMs) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const r = await resolveInside(task.script ?? '');
      if ('problem' in r) return { outcome: 'refused', retryable: false, status: null, durationMs: elapsed(), error: r.problem, output: { error: 'refused' } };
      return new Promise<AttemptResult>((done) => {
        const child = spawn(r.path, [...(task.args ?? [])], {
          cwd: root,
          shell: false,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
        });
        const out = capture(child.stdout, cap);
        const err = capture(child.stderr, cap);
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          killGroup(child.pid);
        }, timeoutMs);
        const finish = (code: number | null, signal: string | null, spawnError?: string) => {
          clearTimeout(timer);
          // The script may have left children behind in its group: they go with it.
          killGroup(child.pid);
          const output = { exitCode: code, signal, stdoutSha256: out.sha256(), stderrSha256: err.sha256(), truncated: out.truncated() || err.truncated() };
          if (spawnError !== undefined)
            done({ outcome: 'failure', retryable: false, status: null, durationMs: elapsed(), error: `script could not start: ${spawnError}`, output });
          else if (timedOut)
            done({ outcome: 'timeout', retryable: true, status: null, durationMs: elapsed(), error: `timed out after ${timeoutMs} ms`, output });
          else if (code === 0) done({ outcome: 'success', retryable: false, status: null, durationMs: elapsed(), error: null, output });
          else
            done({
              outcome: 'failure',
              retryable: true,
              status: null,
              durationMs: elapsed(),
              error: code !== null ? `exit code ${code}` : `killed by ${signal}`,
              output,
            });
        };
        child.once('error', (e: NodeJS.ErrnoException) => finish(null, null, e.code ?? 'error'));
        child.once('close', (code, signal) => finish(code, signal));
      });
    },
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function capture(stream: NodeJS.ReadableStream, cap: number) {
  const hash = createHash('sha256');
  let kept = 0;
  let over = false;
  stream.on('data', (chunk: Buffer) => {
    const part = chunk.subarray(0, Math.max(0, cap - kept));
    if (part.length < chunk.length) over = true;
    kept += part.length;
    if (part.length > 0) hash.update(part);
  });
  let digest: string | undefined;
  return { sha256: () => (digest ??= hash.digest('hex')), truncated: () => over };
}
