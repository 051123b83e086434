import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskProblem } from '../../core/scheduling/index.ts';
import { createScriptRunner, type ScriptRunner } from './script-runner.ts';

/**
 * The path-traversal corpus (issue 14): every way out of the script root we know of, through the
 * request rules and the runner. A script outside the root appends a line to a file each time it
 * runs: that file must stay absent.
 */
let base: string;
let root: string;
let outsideLog: string;
let insideLog: string;
let runner: ScriptRunner;

async function script(path: string, body: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'scripts-'));
  root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  outsideLog = join(base, 'outside-ran.log');
  insideLog = join(base, 'inside-ran.log');
  await script(join(outside, 'evil.sh'), `echo ran >> ${outsideLog}`);
  await script(join(root, 'ok.sh'), `echo "$@" >> ${insideLog}`);
  await script(join(root, 'sub', 'nested.sh'), `echo nested >> ${insideLog}`);
  await script(join(root, 'sleeper.sh'), `sleep 30 & sleep 30; echo late >> ${insideLog}`);
  await script(join(root, 'fails.sh'), 'exit 3');
  await symlink(join(outside, 'evil.sh'), join(root, 'link-out.sh'));
  await symlink(outside, join(root, 'dir-out'));
  await symlink('../outside/evil.sh', join(root, 'relative-link.sh'));
  await symlink(join(root, 'ok.sh'), join(root, 'link-in.sh'));
  runner = await createScriptRunner({ root });
});
afterAll(() => rm(base, { recursive: true, force: true }));

const CORPUS = [
  '../outside/evil.sh',
  './../outside/evil.sh',
  'sub/../../outside/evil.sh',
  'ok.sh/../../outside/evil.sh',
  '..\\outside\\evil.sh',
  '../../../../../../../../tmp/x',
  '..',
  '../',
  '/bin/sh',
  '//bin/sh',
  '\\\\server\\share\\evil.sh',
  'C:\\evil.sh',
  'c:/evil.sh',
  'link-out.sh',
  'dir-out/evil.sh',
  'relative-link.sh',
  'dir-out/../dir-out/evil.sh',
  'ok.sh\u0000../outside/evil.sh',
  'ok.sh\u0000',
  '%2e%2e/outside/evil.sh',
  '%2e%2e%2foutside%2fevil.sh',
  '..%2foutside%2fevil.sh',
  '....//outside/evil.sh',
  '.../outside/evil.sh',
  'sub',
  '.',
  '',
  'missing.sh',
  '\u002e\u002e/outside/evil.sh',
  '．．/outside/evil.sh',
  'sub/./../../outside/evil.sh',
  'dir-out',
];

describe('script tasks: the path-traversal corpus', () => {
  it(`runs nothing outside the root for ${CORPUS.length} paths`, async () => {
    for (const path of CORPUS) {
      const rule = taskProblem({ type: 'script', script: path }, { scriptsEnabled: true });
      const check = await runner.check(path);
      const result = await runner.run({ script: path }, 2000);
      // Each path is refused by the request rules, the runner's check, or at the latest when run.
      expect(rule !== undefined || check !== undefined, path).toBe(true);
      expect(result.outcome, path).not.toBe('success');
    }
    await expect(readFile(outsideLog, 'utf8')).rejects.toThrow();
  });

  it('runs a script inside the root, through a link that stays inside, with its args and no shell', async () => {
    expect(await runner.check('ok.sh')).toBeUndefined();
    expect(await runner.check('link-in.sh')).toBeUndefined();
    expect((await runner.run({ script: 'ok.sh', args: ['$(touch /tmp/x)', 'a b'] }, 5000)).outcome).toBe('success');
    expect((await runner.run({ script: 'sub/nested.sh' }, 5000)).outcome).toBe('success');
    expect((await runner.run({ script: 'link-in.sh', args: ['via-link'] }, 5000)).outcome).toBe('success');
    expect(await readFile(insideLog, 'utf8')).toBe('$(touch /tmp/x) a b\nnested\nvia-link\n');
  });

  it('kills the whole process tree at the timeout, and reports a failing exit code', async () => {
    const before = await readFile(insideLog, 'utf8').catch(() => '');
    const r = await runner.run({ script: 'sleeper.sh' }, 300);
    expect(r).toMatchObject({ outcome: 'timeout', error: 'timed out after 300 ms' });
    expect(r.durationMs).toBeLessThan(5000);
    expect(await runner.run({ script: 'fails.sh' }, 2000)).toMatchObject({ outcome: 'failure', error: 'exit code 3', retryable: true });
    expect(await readFile(insideLog, 'utf8').catch(() => '')).toBe(before);
  });
});
