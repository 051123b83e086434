import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { Child } from '../compose/child.ts';
import { SERVICES, PORT_VARIABLES } from '../config/index.ts';
import { call, type Answer, type CallOptions } from '../integration/helpers.ts';

/**
 * The chaos tests' suite process (`node cli/suite.ts start`) on its own ports (each listener binds
 * port 0; the ports are read from the first screen it prints), and a load that counts every answer
 * by status. Tests only.
 */
const repo = new URL('..', import.meta.url).pathname;

export interface SuiteProcess {
  readonly child: Child;
  /** The token listener, e.g. http://127.0.0.1:40123. */
  readonly base: string;
}

export async function startSuiteProcess(name: string, args: readonly string[], env: Record<string, string>): Promise<SuiteProcess> {
  const ports = Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0']));
  const child = new Child({
    name,
    args: ['cli/suite.ts', ...args],
    cwd: repo,
    env: { ...process.env, NODE_OPTIONS: '', SUITE_LOG_LEVEL: 'warn', SUITE_HOST: '127.0.0.1', ...ports, ...env } as Record<string, string>,
  });
  // The first screen names each listener with its bound port; it is printed once the suite serves.
  for (;;) {
    const port = /token\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output())?.[1];
    if (port !== undefined) return { child, base: `http://127.0.0.1:${port}` };
    if (!child.running) throw new Error(`${name} exited before serving:\n${child.output().slice(-4000)}`);
    await Promise.race([child.exited(), new Promise((r) => setTimeout(r, 50))]);
  }
}

export interface Load {
  /** Answers by status ('error' when no HTTP answer came: connection refused, reset, time-out). */
  readonly statuses: Map<number | 'error', number>;
  /** The first answer of a status after a time (ms since epoch), for recovery times. */
  firstAfter(status: number, since: number): number | undefined;
  stop(): Promise<void>;
}

/** `workers` loops each sending `request()` one after another until stop(); every answer is counted. */
export function runLoad(workers: number, url: () => string, options: () => CallOptions, onAnswer?: (a: Answer) => void): Load {
  const statuses = new Map<number | 'error', number>();
  const times: Array<{ status: number; at: number }> = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      let answer: Answer | undefined;
      try {
        answer = await call(url(), { ...options(), timeoutMs: 10_000 });
      } catch {
        answer = undefined;
      }
      const key = answer?.status ?? 'error';
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (answer) {
        times.push({ status: answer.status, at: Date.now() });
        onAnswer?.(answer);
      } else {
        // Nothing listening (the suite is between runs): do not spin.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    statuses,
    firstAfter: (status, since) => times.find((t) => t.status === status && t.at > since)?.at,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** `{ "200": 123, "503": 4 }` for messages. */
export const tally = (load: Load) => JSON.stringify(Object.fromEntries(load.statuses));

/** The embedded Postgres's postmaster process id, from its pid file in a `suite start --data-dir` folder. */
export async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(join(dataDir, 'database', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}
