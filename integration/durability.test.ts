import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Child, listenerPorts, waitFor, zeroPorts } from '../compose/child.ts';
import { call, mint } from './helpers.ts';
import { openStorage } from '../storage/index.ts';
import { analyseTrace, STRACE_ARGS, type DurabilityReport } from '../testing/syscall-trace.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The embedded default (`suite start --data-dir`, as `npm start` runs it) under strace: an append
 * is answered only once the WAL that holds it is synced, and a clean stop leaves every file synced
 * before its checkpoint. Either missing, an OS crash or a power loss could lose acknowledged
 * records and audit entries, or leave a database that does not open. CI installs strace (.ci/run).
 */
const repo = new URL('..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
});

function hasStrace(): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const APPEND = {
  subject: 'durable-agent',
  scope: ['crm:write'],
  module: 'crm',
  action: 'update-contact',
  input: { contact: 1 },
  output: { ok: true },
  outcome: 'success',
};

/** Appends on `suite start --data-dir <dataDir>` under strace, then a clean stop: the strace log. */
async function appendUnderStrace(dataDir: string, tracePath: string): Promise<string> {
  const suite = new Child({
    name: 'suite under strace',
    command: 'strace',
    args: [...STRACE_ARGS, '-o', tracePath, process.execPath, 'cli/suite.ts', 'start', '--data-dir', dataDir],
    cwd: repo,
    // The token listener binds a port of its own choosing; the test reads it from what the suite prints.
    env: { ...process.env, NODE_OPTIONS: '', SUITE_LOG_LEVEL: 'warn', SUITE_HOST: '127.0.0.1', ...zeroPorts() } as Record<string, string>,
  });
  try {
    const { token: port } = await listenerPorts(suite, ['token']);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/health`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      describe: () => `not healthy within 30 s:\n${suite.output()}`,
      abort: () => (suite.running ? undefined : `the suite exited:\n${suite.output()}`),
    });
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(base, adminKey, 'durable-agent', ['execution:record']);
    // One at a time (a commit each), then together (group commits of several records).
    for (let i = 0; i < 15; i++) expect((await call(`${base}/executions`, { token, body: APPEND })).status).toBe(201);
    const together = await Promise.all(Array.from({ length: 30 }, () => call(`${base}/executions`, { token, body: APPEND })));
    expect(together.map((a) => a.status)).toEqual(together.map(() => 201));

    // The suite alone gets the signal (strace would detach); its database then stops cleanly.
    const pid = Number((await readFile(`/proc/${suite.pid}/task/${suite.pid}/children`, 'utf8')).trim().split(/\s+/)[0]);
    process.kill(pid, 'SIGTERM');
    await Promise.race([suite.exited(), new Promise((r) => setTimeout(r, 30_000))]);
    expect(suite.running, `the suite did not stop within 30 s:\n${suite.output()}`).toBe(false);
    return await readFile(tracePath, 'utf8');
  } finally {
    await suite.stop();
  }
}

function expectDurable(report: DurabilityReport): void {
  // The database answered each sequential append's commit, and wrote and synced its WAL.
  expect(report.commitAnswers).toBeGreaterThanOrEqual(15);
  expect(report.walWrites).toBeGreaterThan(0);
  expect(report.commitsUnsynced.slice(0, 3), `${report.commitsUnsynced.length} of ${report.commitAnswers} commits answered before a sync of their WAL`).toEqual(
    [],
  );
  expect(report.shutdowns).toBeGreaterThanOrEqual(1);
  expect(report.shutdownsUnsynced.slice(0, 3), 'a shutdown checkpoint recorded with files unsynced').toEqual([]);
}

async function newFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'suite-durability-'));
  dirs.push(folder);
  return folder;
}

describe.skipIf(process.platform !== 'linux')('the embedded default on disk', () => {
  it('answers every commit only after a sync of the WAL it wrote, and syncs every file before its shutdown checkpoint', {
    timeout: machineTimeout(90_000),
  }, async () => {
    // A failure here, not a skip: a machine without strace would otherwise never check this.
    expect(hasStrace(), 'strace is needed for this test (Debian: apt-get install strace)').toBe(true);
    const folder = await newFolder();
    const dataDir = join(folder, 'data');
    const log = await appendUnderStrace(dataDir, join(folder, 'strace.log'));
    expectDurable(analyseTrace(log, join(dataDir, 'database')));
  });

  it('does the same on a PGlite data folder of an earlier version, which it keeps', { timeout: machineTimeout(90_000) }, async () => {
    expect(hasStrace(), 'strace is needed for this test (Debian: apt-get install strace)').toBe(true);
    const folder = await newFolder();
    const dataDir = join(folder, 'data');
    const earlier = await openStorage({ dbPath: join(dataDir, 'pglite'), embeddedEngine: 'pglite' });
    await earlier.close();
    const log = await appendUnderStrace(dataDir, join(folder, 'strace.log'));
    expectDurable(analyseTrace(log, join(dataDir, 'pglite')));
    expect(log).toContain('pglite-process.ts');
  });
});
