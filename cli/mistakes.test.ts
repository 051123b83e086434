import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Issue 23 part 6: a mistyped command line gets one line naming the mistake (with a did-you-mean
 * when one is close), then the usage, exit code 2, and no stack trace; nothing is started or created.
 */
const repo = new URL('..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function suite(args: string[], given?: string): Promise<{ code: number; stdout: string; stderr: string; cwd: string }> {
  const cwd = given ?? (await mkdtemp(join(tmpdir(), 'suite-mistake-')));
  if (given === undefined) dirs.push(cwd);
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repo, 'cli/suite.ts'), ...args], { cwd, env: { ...process.env, SUITE_LOG_LEVEL: 'silent' } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : ((err as { code?: number }).code ?? -1), stdout, stderr, cwd });
    });
  });
}

describe('command-line mistakes', () => {
  it.each([
    [['verfy'], 'suite: unknown command "verfy" (did you mean "verify"?)'],
    [['strat'], 'suite: unknown command "strat" (did you mean "start"?)'],
    [['run', 'edge:tokn'], 'suite: unknown role "edge:tokn" (did you mean "edge:token"?)'],
    [['start', '--data-dri', 'x'], 'suite: unknown option --data-dri (did you mean --data-dir?)'],
    [['frobnicate'], 'suite: unknown command "frobnicate"'],
  ])('suite %j names the mistake in one line, shows the usage and exits 2 without a stack trace', { timeout: machineTimeout(30_000) }, async (args, first) => {
    const r = await suite(args);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(first);
    expect(lines[1]).toBe('usage:');
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
    // Nothing was started or created where it ran (no data folder).
    expect(await readdir(r.cwd)).toEqual([]);
  });

  it('still answers --help with the usage on standard output and exit 0', { timeout: machineTimeout(30_000) }, async () => {
    const r = await suite(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage:/);
  });

  it('a second suite start on a data folder in use says so in one sentence, with no stack trace (issue 36)', { timeout: machineTimeout(60_000) }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'suite-in-use-'));
    dirs.push(dir);
    // The folder as a running suite leaves it: its database locked by a live process (this one).
    await mkdir(join(dir, 'pglite'), { mode: 0o700 });
    await chmod(dir, 0o700);
    await writeFile(join(dir, 'pglite', 'suite.lock'), `${process.pid}\n`);
    const r = await suite(['start', '--data-dir', dir], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `suite: The data folder ${dir}/pglite is in use by process ${process.pid}. Stop it first; if no such process runs, delete ${dir}/pglite/suite.lock.\n`,
    );
  });
});
