import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatVkey, rawEd25519PublicKey, SIG_ED25519 } from '../core/tlog/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { verifyCommand } from './verify.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/** `suite verify --log URL` against a running suite (in-memory PGlite): the fsck of its served log. */
let t: TestSuite;
let dir: string;
let token: string;
let base: string;
let vkey: string;
let earlier: string;

const RECORD = { subject: 'test-agent', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, outcome: 'success' };

async function record(n: number): Promise<void> {
  for (let done = 0; done < n; done += 25) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(25, n - done) }, () =>
        fetch(`${base}/executions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(RECORD),
        }),
      ),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 201)).toEqual([]);
  }
}

/** The served checkpoint once it covers `size` records (one is published within a second of a commit). */
async function checkpointOf(size: number): Promise<string> {
  for (;;) {
    const note = await (await fetch(`${base}/executions/log/checkpoint`)).text();
    if (note.split('\n')[1] === String(size)) return note;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function run(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = { write: (s: string) => (out += s) };
  const code = await verifyCommand(args, sink, sink);
  return { code, out };
}

beforeAll(async () => {
  t = await startTestSuite();
  base = t.url('token');
  dir = await mkdtemp(join(tmpdir(), 'suite-log-fsck-'));
  ({ token } = await t.mint(['execution:record', 'execution:read']));
  await record(300);
  earlier = join(dir, 'earlier.checkpoint');
  await writeFile(earlier, await checkpointOf(300));
  await record(20);
  await checkpointOf(320);
  vkey = (await (await fetch(`${base}/executions/log/vkey`)).text()).trim();
}, machineTimeout(120_000));
afterAll(async () => {
  await t?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('suite verify --log', () => {
  it('rebuilds the served tree, checks every entry and the chain head, and shows an earlier checkpoint is a prefix', async () => {
    const { code, out } = await run(['--log', base, '--log-vkey', vkey, '--token', token, '--since', earlier]);
    expect(out).toBe(
      [
        'verified: the log at size 320: 3 hash tile(s) read, the root rebuilt from them, 320 entries checked against their leaves',
        'chain head: seq 320',
        'consistent with the earlier checkpoint(s) of size 300',
        '',
      ].join('\n'),
    );
    expect(code).toBe(0);
  });

  it('without a token checks the tiles against the checkpoint and says the chain head was not compared', async () => {
    const { code, out } = await run(['--log', base, '--log-vkey', vkey]);
    expect(out).toContain('verified: the log at size 320: 3 hash tile(s) read, the root rebuilt from them\n');
    expect(out).toContain('chain head: not compared');
    expect(code).toBe(0);
  });

  it("refuses a base that is not a URL, and a vkey that is not the log's", async () => {
    expect((await run(['--log', `${base}/executions`, '--log-vkey', vkey])).code).toBe(2);
    const other = formatVkey(vkey.split('+')[0] as string, SIG_ED25519, rawEd25519PublicKey(generateKeyPairSync('ed25519').publicKey));
    const wrongKey = await run(['--log', base, '--log-vkey', other]);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.out).toMatch(/the served checkpoint does not open/);
  });

  it('a leaf hash changed in the database is found: its entry and the root no longer match', async () => {
    const pool = t.suite.storage!.pool;
    await pool.query(
      sql.unsafe`update execution_log_tiles set hashes = overlay(hashes placing decode(repeat('00', 32), 'hex') from 97 for 32) where level = 0 and idx = 0`,
    );
    const { code, out } = await run(['--log', base, '--log-vkey', vkey, '--token', token, '--since', earlier]);
    expect(out).toContain('NOT verified: the log at size 320');
    expect(out).toContain('problem: leaf 3: its entry does not hash to the leaf hash the tile serves');
    expect(out).toContain("problem: the root rebuilt from the tiles is not the checkpoint's (size 320)");
    expect(out).toContain("problem: the tree rebuilt at size 300 is not the earlier checkpoint's: history was rewritten");
    expect(code).toBe(1);
  });
});
