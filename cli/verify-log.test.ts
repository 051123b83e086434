import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceSigner } from '../core/chain/index.ts';
import { ed25519Cosigner, formatVkey, logKey, parseNote, signatureLine, SIG_COSIGNATURE_V1 } from '../core/tlog/index.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../testing/executions.ts';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import { verifyCommand } from './verify.ts';
import { machineTimeout } from '../testing/machine-time.ts';
import { eventually } from '../testing/http-target.ts';

const ORIGIN = 'suite.test/executions/log';
const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const lk = logKey(ORIGIN, createPrivateKey(pem));
const witness = ed25519Cosigner('witness.test/w1', generateKeyPairSync('ed25519').privateKey);
const witnessVkey = formatVkey(witness.name, SIG_COSIGNATURE_V1, witness.publicKey);

/** The same checkpoint text, signed by a key of the same name that is not the log's. */
function signedByAnotherKey(checkpoint: string): string {
  const note = parseNote(checkpoint);
  if (typeof note === 'string') throw new Error(note);
  const other = logKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
  return `${note.text}\n${signatureLine({ name: ORIGIN, keyId: other.signer.keyId, signature: other.signer.sign(Buffer.from(note.text)) })}`;
}

async function run(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = { write: (t: string) => (out += t) };
  const code = await verifyCommand(args, sink, sink);
  return { code, out };
}

describe.each(storageKinds().filter((k) => k.kind === 'postgres'))('suite verify --receipt and --checkpoint on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  let dir: string;
  let receipt: any;
  let madeId: string;
  beforeAll(async () => {
    db = await open();
    dir = await mkdtemp(join(tmpdir(), 'suite-receipt-'));
    h = await startExecutionHarness({
      storage: db.storage,
      tracePrivateKeyPem: pem,
      log: { origin: ORIGIN, signer: lk.signer, vkey: lk.vkey, checkpointEveryMs: 50 },
    });
    await writeFile(join(dir, 'pub.pem'), createTraceSigner(pem).publicKeyPem);
    const made = await Promise.all(Array.from({ length: 20 }, () => h.record(executionBody())));
    madeId = made[7]!.body.id;
    const token = await h.token(['execution:read']);
    // A receipt is served once the log has a checkpoint over the record: asked until then.
    receipt = await eventually(async () => {
      const res = await h.app.inject({ method: 'GET', url: `/executions/${madeId}/receipt`, headers: { authorization: `Bearer ${token}` } });
      return res.statusCode === 200 ? res.json() : undefined;
    }, 'the receipt of the eighth record');
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const save = async (name: string, value: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
  const args = (path: string, extra: string[] = []) => ['--receipt', path, '--public-key', join(dir, 'pub.pem'), '--log-vkey', lk.vkey, ...extra];

  it('a receipt from the route verifies offline with the trace key and the log vkey', async () => {
    // The 20 records were made at once: which seq each got is the order their appends reached the
    // writer (a CI run gave the eighth made seq 7), so the seq is read from the receipt's record.
    const seq = receipt.record.seq as number;
    expect(receipt.record.id).toBe(madeId);
    const r = await run(args(await save('good.json', receipt)));
    expect(r.out).toMatch(new RegExp(`^verified: record ${madeId} \\(seq ${seq}\\) is leaf ${seq - 1} of the log at size \\d+`));
    expect(r.code).toBe(0);
  });

  it('an edited record, an entry of another record, a proof shortened, or a checkpoint by another key is NOT verified', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['edited', { ...receipt, record: { ...receipt.record, outcome: 'failure' } }, /does not match its hash/],
      ['moved', { ...receipt, leafIndex: receipt.leafIndex + 1 }, new RegExp(`is not record ${receipt.record.seq}'s`)],
      ['short', { ...receipt, proof: receipt.proof.slice(1) }, /inclusion proof does not lead/],
      ['other-key', { ...receipt, checkpoint: signedByAnotherKey(receipt.checkpoint) }, /no signature by a known key/],
    ];
    for (const [name, value, reason] of cases) {
      const r = await run(args(await save(`${name}.json`, value)));
      expect(r.out, name).toMatch(reason);
      expect(r.code, name).toBe(1);
    }
  });

  it('a witness quorum is required when asked, and met by a cosignature over this checkpoint only', async () => {
    const missing = await run(args(await save('noquorum.json', receipt), ['--witness-vkey', witnessVkey, '--quorum', '1']));
    expect(missing.out).toMatch(/cosigned by 0 known witness\(es\), 1 required/);
    const note = parseNote(receipt.checkpoint);
    if (typeof note === 'string') throw new Error(note);
    const cosigned = { ...receipt, checkpoint: receipt.checkpoint + signatureLine(witness.cosign(note.text, 1_800_000_000)) };
    const ok = await run(args(await save('quorum.json', cosigned), ['--witness-vkey', witnessVkey, '--quorum', '1']));
    expect(ok.out).toMatch(/cosigned by witness.test\/w1/);
    expect(ok.code).toBe(0);
    const other = `${note.text.replace(/\n(\d+)\n/, (_m, n) => `\n${Number(n) + 1}\n`)}`;
    const misplaced = { ...receipt, checkpoint: receipt.checkpoint + signatureLine(witness.cosign(other, 1_800_000_000)) };
    const bad = await run(args(await save('misplaced.json', misplaced), ['--witness-vkey', witnessVkey, '--quorum', '1']));
    expect(bad.out).toMatch(/cosignature of witness.test\/w1 does not verify/);
    expect(bad.code).toBe(1);
  });

  it('takes --log-vkey as a file, as --public-key is (issue 36)', async () => {
    const vkeyFile = await save('log.vkey', `${lk.vkey}\n`);
    const r = await run(['--receipt', await save('byfile.json', receipt), '--public-key', join(dir, 'pub.pem'), '--log-vkey', vkeyFile]);
    expect(r.out).toMatch(/^verified: record/);
    expect(r.code).toBe(0);
  });

  it('a checkpoint file verifies alone; a bad vkey is a usage error (exit 2)', async () => {
    const ok = await run(['--checkpoint', await save('cp.txt', receipt.checkpoint), '--log-vkey', lk.vkey]);
    expect(ok.out).toMatch(/^verified: checkpoint of suite.test\/executions\/log, size \d+/);
    expect((await run(['--checkpoint', join(dir, 'cp.txt'), '--log-vkey', 'nonsense'])).code).toBe(2);
  });
});

describe("suite verify's own mistakes (issue 36)", () => {
  it("names an unknown option with the nearest one, not Node's parse error", async () => {
    const r = await run(['x.jsonl', '--public-kee', 'pub.pem']);
    expect(r.code).toBe(2);
    expect(r.out.split('\n')[0]).toBe('suite verify: unknown option --public-kee (did you mean --public-key?)');
  });

  it("tells --receipt without keys what it needs, not the export mode's message", async () => {
    const r = await run(['--receipt', 'r.json']);
    expect(r.code).toBe(2);
    expect(r.out.split('\n')[0]).toBe(
      "suite verify: --receipt needs --public-key PEM (the trace key: GET /executions/public-key) and --log-vkey VKEY or FILE (the log's key: GET /executions/log/vkey)",
    );
  });
});
