import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { runDocumentedScript } from '../testing/trace-format.ts';
import type { ExecutionRecord } from '../core/chain/index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * An auditor's round trip on a real suite: records appended over HTTP, the chain exported with
 * GET /executions/export, the public key fetched from GET /executions/public-key, and the same file
 * judged by three verifiers that share nothing but the format: `suite verify` (the real CLI, a
 * child process), the documented sh/sha256sum/openssl script, and POST /executions/verify (the
 * suite's own check of one record). All three agree on the untouched export and on tampered ones.
 */
const run = promisify(execFile);
const repo = new URL('..', import.meta.url).pathname;

let t: TestSuite;
let dir: string;
let exported: string;
let key: { keyId: string; publicKey: string };
beforeAll(async () => {
  t = await startTestSuite();
  dir = await mkdtemp(join(tmpdir(), 'suite-export-'));
  const { token } = await t.mint(['execution:record', 'execution:read']);
  for (let i = 0; i < 6; i++) {
    const res = await fetch(t.url('token', '/executions'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: `agent-${i}`,
        scope: ['crm:write'],
        module: 'crm',
        action: 'update-contact',
        input: { i, text: 'line one\nline "two" ünïcødé' },
        output: { ok: i % 2 === 0 },
        outcome: i === 3 ? 'failure' : 'success',
        ...(i === 4 ? { cost: { amount: 120, currency: 'EUR', source: 'provider-invoice' } } : {}),
      }),
    });
    expect(res.status).toBe(201);
  }
  const res = await fetch(t.url('token', '/executions/export'), { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  exported = await res.text();
  key = (await (await fetch(t.url('token', '/executions/public-key'))).json()) as typeof key;
  await writeFile(join(dir, 'pub.pem'), key.publicKey);
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `suite verify FILE --public-key pub.pem` as a user runs it; its exit status and output. */
async function suiteVerify(text: string): Promise<{ code: number; stdout: string }> {
  const file = join(dir, `export-${Math.random().toString(16).slice(2)}.trace`);
  await writeFile(file, text);
  try {
    const { stdout } = await run(process.execPath, ['cli/suite.ts', 'verify', file, '--public-key', join(dir, 'pub.pem')], { cwd: repo });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    if (e.code !== 1) throw new Error(`suite verify could not run (${e.code}): ${e.stderr}`);
    return { code: e.code, stdout: e.stdout };
  }
}

const openssl = (text: string) => runDocumentedScript('verify-chain', { 'chain.trace': text, [`keys/${key.keyId}.pem`]: key.publicKey });

/** POST /executions/verify on the record a line holds, as the suite judges it. */
async function apiVerdict(line: string): Promise<boolean> {
  const [hash, signature] = line.split(' ', 2) as [string, string];
  const { v: _v, chain: _chain, ...fields } = JSON.parse(line.slice(hash.length + signature.length + 2)) as Record<string, unknown>;
  const res = await fetch(t.url('token', '/executions/verify'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ record: { ...fields, hash, signature } as unknown as ExecutionRecord, publicKey: key.publicKey }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { valid: boolean }).valid;
}

const lines = () => exported.split('\n');

describe('an export of the execution chain, verified offline', () => {
  it('is found good by suite verify, the documented openssl script and the API alike', async () => {
    const head = lines()[lines().length - 3]!.split(' ')[0];
    const cli = await suiteVerify(exported);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('verified: 6 record(s) of the execution chain (seq 1 to 6)');
    expect(cli.stdout).toContain(`last record: seq 6, hash ${head}`);
    expect(cli.stdout).toContain(`signed by ${key.keyId}: 6 record(s)`);
    expect(openssl(exported)).toMatchObject({ status: 0, stdout: `chain verified: 6 records, head ${head}\n` });
    for (const line of lines().slice(1, 7)) expect(await apiVerdict(line)).toBe(true);
  });

  it.each([
    [
      'a field changed',
      (l: string) => l.replace('"outcome":"failure"', '"outcome":"success"'),
      'NOT verified: seq 4 (line 5): content does not match its hash',
      'record 4: content does not match its hash',
    ],
    [
      "its signature swapped with the next record's",
      (l: string, next: string) => l.replace(l.split(' ')[1]!, next.split(' ')[1]!),
      'NOT verified: seq 4 (line 5): signature does not verify against the public key',
      'record 4: signature does not verify with keys/<keyId>.pem',
    ],
  ])('is found bad by all three, at the same seq, with record 4 %s', async (_name, tamper, cliSays, scriptSays) => {
    const all = lines();
    const tampered = tamper(all[4]!, all[5]!);
    expect(tampered).not.toBe(all[4]);
    const text = all.map((l, i) => (i === 4 ? tampered : l)).join('\n');
    const cli = await suiteVerify(text);
    expect(cli.code).toBe(1);
    expect(cli.stdout.split('\n')[0]).toBe(cliSays);
    expect(cli.stdout).toContain('checked before the failure: 3 record(s), seq 1 to 3');
    expect(openssl(text)).toMatchObject({ status: 1, stdout: `${scriptSays.replace('<keyId>', key.keyId)}\n` });
    expect(await apiVerdict(tampered)).toBe(false);
  });

  it('answers suite verify --help, and exit status 2 when it cannot run', async () => {
    const help = await run(process.execPath, ['cli/suite.ts', 'verify', '--help'], { cwd: repo });
    expect(help.stdout).toMatch(/^usage:\n {2}suite verify FILE --public-key PEM/);
    const noKey = await run(process.execPath, ['cli/suite.ts', 'verify', join(dir, 'pub.pem')], { cwd: repo }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('give one FILE and at least one --public-key') });
    const missing = await run(process.execPath, ['cli/suite.ts', 'verify', join(dir, 'nothing.trace'), '--public-key', join(dir, 'pub.pem')], {
      cwd: repo,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('ENOENT') });
  });
});
