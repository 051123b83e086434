import { performance } from 'node:perf_hooks';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceSigner, type ExecutionRecord } from '../../../core/chain/index.ts';
import { signedChain } from '../../../testing/trace-format.ts';
import { insertExecutions } from '../../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { VerifyPool } from './verify-pool.ts';
import { RunJudge, type KeyOf } from './verify-scan.ts';
import { pageText, scannedRow } from '../../../testing/verify-rows.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = createTraceSigner(pem());
const key = createPublicKey(signer.publicKeyPem);
const keys = new Map([[signer.keyId, key]]);
const other = createPublicKey(createTraceSigner(pem()).publicKeyPem);

/** What RunJudge finds in `records` in this thread. */
function judgedHere(records: readonly ExecutionRecord[], keyOf: KeyOf) {
  const judge = new RunJudge(keyOf);
  for (const r of records) if (!judge.push(scannedRow(r))) break;
  return judge.summary();
}

describe('the verification thread pool', () => {
  const pool = new VerifyPool(2);
  afterAll(() => pool.close());

  // A chain with one record edited, one badly signed and one naming an unknown key.
  const records: ExecutionRecord[] = signedChain(signer, 700).map((r) => {
    if (r.seq === 100) return { ...r, module: 'edited' };
    if (r.seq === 300) return { ...r, signature: signedChain(signer, 1)[0]!.signature };
    if (r.seq === 650) return { ...r, keyId: 'ed25519-0000000000000000' };
    return r;
  });

  it('judges a page of JSON rows on a thread exactly as here: the run up to the first broken record, and that record', async () => {
    for (const [from, to] of [
      [0, 99],
      [0, 250],
      [100, 250],
      [101, 400],
      [301, 700],
    ] as const) {
      const page = records.slice(from, to);
      const summary = await pool.scan({ source: { json: pageText(page) }, keys });
      expect(summary).toEqual(judgedHere(page, (id) => keys.get(id)));
    }
    expect(await pool.scan({ source: { json: pageText(records.slice(0, 300)) }, keys })).toMatchObject({ verified: 99, broken: { record: { seq: 100 } } });
    expect(await pool.scan({ source: { json: pageText(records.slice(600, 700)) }, keys })).toMatchObject({ verified: 49, broken: { record: { seq: 650 } } });
    expect(await pool.scan({ source: { json: '' }, keys })).toEqual({ count: 0, verified: 0, firstChecks: 0, lastHash: '' });
  });

  it('checks every record against a pinned key whatever keyId it names', async () => {
    const pinnedOther = await pool.scan({ source: { json: pageText(records.slice(0, 10)) }, keys: new Map(), pinned: other });
    expect(pinnedOther).toMatchObject({ verified: 0, broken: { record: { seq: 1 } } });
    const pinnedRight = await pool.scan({ source: { json: pageText(records.slice(660, 680)) }, keys: new Map(), pinned: key });
    expect(pinnedRight).toMatchObject({ count: 20, verified: 20, lastHash: records[679]!.hash });
  });

  it('keeps the event loop answering while it checks thousands of signatures', async () => {
    const many = signedChain(signer, 4000);
    // How busy this thread's event loop was while the pool worked, as a share of the time (Node's
    // event-loop utilisation): checked here, the signatures keep it busy throughout (close to 1);
    // on the pool's threads it mostly waits. A share, not a time: a loaded machine slows both sides.
    const pages: string[] = [];
    for (let at = 0; at < many.length; at += 500) pages.push(pageText(many.slice(at, at + 500)));
    const before = performance.eventLoopUtilization();
    const summaries = await Promise.all(pages.map((json) => pool.scan({ source: { json }, keys })));
    const busy = performance.eventLoopUtilization(before).utilization;
    expect(summaries.every((s) => s.verified === 500)).toBe(true);
    expect(busy).toBeLessThan(0.5);
  });

  it('ends its threads once idle, and starts fresh ones for the next job', async () => {
    const p = new VerifyPool(2, { idleMs: 100 });
    try {
      expect(await p.scan({ source: { json: pageText(records.slice(0, 20)) }, keys })).toMatchObject({ verified: 20 });
      expect(p.running).toBe(2);
      // Waits for the threads to end (idleMs after the job), however long the machine takes.
      while (p.running > 0) await new Promise((r) => setTimeout(r, 20));
      expect(await p.scan({ source: { json: pageText(records.slice(20, 40)) }, keys })).toMatchObject({ verified: 20 });
    } finally {
      await p.close();
    }
  });

  it('refuses work once closed', async () => {
    const p = new VerifyPool(1);
    await p.close();
    await expect(p.scan({ source: { json: '' }, keys })).rejects.toThrow(/closed/);
  });
});

describe.each(storageKinds().filter((k) => k.kind === 'postgres'))('verification threads reading their own ranges on $kind', ({ open }) => {
  const pool = new VerifyPool(2);
  const chain = signedChain(signer, 1200);
  let t: TestStorage;
  beforeAll(async () => {
    t = await open();
    await insertExecutions(
      t.storage.pool,
      chain.map((r) => ({ ...r, idempotencyKey: null })),
    );
  }, machineTimeout(60_000));
  afterAll(async () => {
    await pool.close();
    await t?.dispose();
  });
  const url = () => t.storage.pool.configuration.connectionUri;

  it('reads and judges a range over a connection of their own, exactly as here', async () => {
    const ranges = [
      [1, 500],
      [501, 1000],
      [1001, 1500],
      [1300, 1400],
    ] as const;
    const summaries = await Promise.all(ranges.map(([from, to]) => pool.scan({ source: { url: url(), from, to }, keys })));
    expect(summaries).toEqual(ranges.map(([from, to]) => judgedHere(chain.slice(from - 1, to), (id) => keys.get(id))));
    expect(summaries.map((s) => s.verified)).toEqual([500, 500, 200, 0]);
  });

  it('fail a job whose read fails, saying why, and go on serving the next', async () => {
    const missing = new URL(url());
    missing.pathname = '/suite_no_such_database';
    await expect(pool.scan({ source: { url: missing.toString(), from: 1, to: 10 }, keys })).rejects.toThrow(/suite_no_such_database/);
    expect(await pool.scan({ source: { url: url(), from: 1, to: 10 }, keys })).toMatchObject({ verified: 10 });
  });
});
