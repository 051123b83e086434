import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PORT_VARIABLES, SERVICES } from '../config/index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * What a person sees when the suite first starts (`suite start` with a fresh data folder): the
 * admin key and the curl line stand apart from the log, on standard error after the start-up lines;
 * the log is JSON when read from a pipe (a collector), pretty on a terminal or when asked.
 */
const repo = new URL('..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
});

const RULE = '='.repeat(72);
/** The first screen is complete once its last rule follows the listeners. */
const SCREEN_DONE = new RegExp(`dashboard +http://\\S+\\n${RULE}\\n`);

interface Started {
  stdout: string;
  stderr: string;
}

/**
 * `node cli/suite.ts start` on a fresh data folder and ephemeral ports, stopped (SIGTERM to its
 * process group) once the first screen is out. `tty`: under `script`, which gives it a terminal
 * (standard output and error then arrive together, as a person sees them).
 */
async function startOnce(env: Record<string, string>, o: { tty?: boolean; whileUp?: (screen: string) => Promise<void> } = {}): Promise<Started> {
  const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-first-')), 'data');
  dirs.push(dataDir);
  const ports = Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0']));
  const fullEnv = { ...process.env, ...ports, ...env } as NodeJS.ProcessEnv;
  delete fullEnv.SUITE_LOG_FORMAT;
  if (env.SUITE_LOG_FORMAT !== undefined) fullEnv.SUITE_LOG_FORMAT = env.SUITE_LOG_FORMAT;
  const command = [process.execPath, 'cli/suite.ts', 'start', '--data-dir', dataDir];
  const child = o.tty
    ? spawn('script', ['-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: repo, env: fullEnv, detached: true })
    : spawn(command[0] as string, command.slice(1), { cwd: repo, env: fullEnv, detached: true });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out.stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    out.stderr += d;
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const screen = () => (o.tty ? out.stdout.replaceAll('\r\n', '\n') : out.stderr);
  const deadline = Date.now() + machineTimeout(30_000);
  while (!SCREEN_DONE.test(screen())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no first screen:\n${out.stdout}\n${out.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    await o.whileUp?.(screen());
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
  return o.tty ? { stdout: screen(), stderr: '' } : out;
}

const ADMIN_KEY = /Admin key \(shown once\): (sk_admin_[A-Za-z0-9_-]+)/;
const PRETTY_LINE = /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /;

describe('the first screen of suite start', () => {
  it('read from pipes: standard output holds only JSON log lines; the admin key and a curl line that mints a token stand on standard error', {
    timeout: machineTimeout(60_000),
  }, async () => {
    let minted: unknown;
    const { stdout, stderr } = await startOnce(
      {},
      {
        // The curl line, copied as it stands into a shell while the suite runs.
        whileUp: async (screen) => {
          const curl = /^curl [^\n]*\\\n[^\n]*\\\n[^\n]*$/m.exec(screen)?.[0];
          expect(curl, screen).toBeDefined();
          minted = JSON.parse((await promisify(execFile)('sh', ['-c', curl as string])).stdout);
        },
      },
    );
    expect(minted).toMatchObject({ token: expect.stringMatching(/^eyJ/) });
    const logLines = stdout.trim().split('\n');
    expect(logLines.length).toBeGreaterThan(5);
    for (const line of logLines) expect(() => JSON.parse(line), line).not.toThrow();
    const key = ADMIN_KEY.exec(stderr)?.[1];
    expect(key).toBeDefined();
    expect(stdout).not.toContain(key);
    expect(stderr).not.toContain('{"level"');
    expect(stderr.split('\n').slice(0, 3)).toEqual(['', RULE, expect.stringMatching(/^First run: secrets generated in .*secrets\.json \(owner-only\)\.$/)]);
  });

  it('with SUITE_LOG_FORMAT=pretty: one short line per log entry, no JSON', { timeout: machineTimeout(60_000) }, async () => {
    const { stdout, stderr } = await startOnce({ SUITE_LOG_FORMAT: 'pretty' });
    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(PRETTY_LINE);
    expect(stdout).toMatch(/ INFO {2}storage +migration applied {2}version=1 /);
    expect(stderr).toMatch(ADMIN_KEY);
  });

  it('on a terminal: pretty log lines by default, then the first screen on its own, below them', { timeout: machineTimeout(60_000) }, async () => {
    const { stdout: screen } = await startOnce({ NO_COLOR: '1' }, { tty: true });
    expect(screen).not.toContain('{"level"');
    const at = screen.indexOf(`\n${RULE}\nFirst run:`);
    expect(at).toBeGreaterThan(0);
    const logPart = screen.slice(0, at).trim().split('\n');
    for (const line of logPart) expect(line).toMatch(PRETTY_LINE);
    expect(logPart.some((l) => / dashboard +Server listening at /.test(l))).toBe(true);
    expect(screen.slice(at)).toMatch(ADMIN_KEY);
  });
});
