import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { eventually } from '../../testing/http-target.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
let dir: string;
let token: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scheduler-scripts-'));
  await writeFile(join(dir, 'hello.sh'), `#!/bin/sh\necho "$1" >> ${join(dir, 'ran.log')}\n`);
  await chmod(join(dir, 'hello.sh'), 0o755);
  t = await startTestSuite({ SCHEDULER_SCRIPT_ROOT: dir, SCHEDULER_POLL_MS: '20' });
  token = (await t.mint(['queue:write', 'queue:read', 'runtime:read'])).token;
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function call(path: string, body?: unknown) {
  const res = await fetch(t.url('scheduler', path), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('script tasks with SCHEDULER_SCRIPT_ROOT set', () => {
  it('runs a script of the root with its args, and refuses one outside it with 400 naming task.script', async () => {
    expect((await call('/runtime/health')).body.scripts).toEqual({ enabled: true });
    expect((await call('/queue', { id: 'hello', task: { type: 'script', script: 'hello.sh', args: ['world'] } })).status).toBe(201);
    await eventually(async () => (await call('/queue/hello/status')).body.state === 'succeeded', 'the script to run');
    expect(await readFile(join(dir, 'ran.log'), 'utf8')).toBe('world\n');
    const out = await call('/queue', { task: { type: 'script', script: '../etc/passwd' } });
    expect(out.status).toBe(400);
    expect(out.body.error.message).toMatch(/task\.script/);
    const missing = await call('/queue', { task: { type: 'script', script: 'nope.sh' } });
    expect(missing.body.error.message).toMatch(/task\.script does not exist/);
  });
});
