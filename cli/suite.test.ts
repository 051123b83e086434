import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = new URL('..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** `suite --help` with TMPDIR in a folder of its own; answers what it printed and the files under that folder's compile cache. */
async function helpWith(extraEnv: Record<string, string>): Promise<{ stdout: string; cached: string[] }> {
  const tmp = await mkdtemp(join(tmpdir(), 'suite-cli-'));
  dirs.push(tmp);
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, ...extraEnv };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_OPTIONS;
  if (extraEnv.NODE_DISABLE_COMPILE_CACHE === undefined) delete env.NODE_DISABLE_COMPILE_CACHE;
  const { stdout } = await run(process.execPath, ['cli/suite.ts', '--help'], { cwd: repo, env });
  const cached = await readdir(join(tmp, 'node-compile-cache'), { recursive: true }).catch(() => []);
  return { stdout, cached };
}

describe('the suite command entry point (cli/suite.ts)', () => {
  it('keeps compiled modules in a compile cache under the temporary folder, so later starts skip type stripping and compiling', async () => {
    const { stdout, cached } = await helpWith({});
    expect(stdout).toContain('usage:');
    expect(cached.length).toBeGreaterThan(0);
  });

  it('writes no compile cache when NODE_DISABLE_COMPILE_CACHE=1, and still runs', async () => {
    const { stdout, cached } = await helpWith({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(stdout).toContain('usage:');
    expect(cached).toEqual([]);
  });

  it('runs Node with its young generation capped at 2 × 8 MB, under npm start and as the suite command alike', async () => {
    const shebang = (await readFile(join(repo, 'cli/suite.ts'), 'utf8')).split('\n')[0] ?? '';
    const { scripts } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const options = scripts.start.slice('node '.length, scripts.start.indexOf(' cli/suite.ts')).split(' ');
    expect(options).toContain('--max-semi-space-size=8');
    expect(shebang).toBe(`#!/usr/bin/env -S node ${options.join(' ')}`);
    // What the option does on this Node: V8's own sizing would let the young generation reach 128 MB.
    const allocate = `let k = []; for (let i = 0; i < 3e6; i++) { k.push({ i, s: 'x' + i }); if (k.length > 1e5) k = []; }
      console.log(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)`;
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const { stdout } = await run(process.execPath, [...options, '-e', allocate], { env });
    expect(Number(stdout)).toBeLessThanOrEqual(16 * 2 ** 20);
  });
});
