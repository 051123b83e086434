import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTraceSigner, precompute, type ExecutionRecord } from '../chain/index.ts';
import { signedChain } from '../chain/testing.ts';
import { VerifyPool } from './verify-pool.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('the verification thread pool', () => {
  const signer = createTraceSigner(pem());
  const key = createPublicKey(signer.publicKeyPem);
  const other = createPublicKey(createTraceSigner(pem()).publicKeyPem);
  const pool = new VerifyPool(2);
  afterAll(() => pool.close());

  // A chain with one record edited, one badly signed and one naming an unknown key.
  const records: ExecutionRecord[] = signedChain(signer, 700).map((r) => {
    if (r.seq === 100) return { ...r, module: 'edited' };
    if (r.seq === 300) return { ...r, signature: signedChain(signer, 1)[0]!.signature };
    if (r.seq === 650) return { ...r, keyId: 'ed25519-0000000000000000' };
    return r;
  });

  it('judges content and signature of every record exactly as the single-threaded check does', async () => {
    const keys = new Map([[signer.keyId, key]]);
    const got = await pool.check(records, keys);
    const expected = records.map((r) => precompute(r, (id) => keys.get(id)));
    expect(got).toEqual(expected);
    const failing = got.flatMap((v, i) => (v.contentOk && v.signatureOk ? [] : [records[i]!.seq]));
    expect(failing).toEqual([100, 300, 650]);
  });

  it('checks every record against a pinned key whatever keyId it names', async () => {
    const pinnedOther = await pool.check(records.slice(0, 10), new Map(), other);
    expect(pinnedOther.every((v) => v.contentOk && !v.signatureOk)).toBe(true);
    const pinnedRight = await pool.check(records.slice(640, 660), new Map(), key);
    expect(pinnedRight.every((v) => v.signatureOk)).toBe(true);
  });

  it('keeps the event loop answering while it checks thousands of signatures', async () => {
    const many = signedChain(signer, 4000);
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const verdicts = await pool.check(many, new Map([[signer.keyId, key]]));
    clearInterval(timer);
    expect(verdicts.every((v) => v.contentOk && v.signatureOk)).toBe(true);
    // Checked in this thread, 4,000 signatures take ~0.4 s of uninterrupted work.
    expect(maxGap).toBeLessThan(150);
  });

  it('refuses work once closed', async () => {
    const p = new VerifyPool(1);
    await p.close();
    await expect(p.check(records.slice(0, 1), new Map())).rejects.toThrow(/closed/);
  });
});
