import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTraceSigner,
  executionExportLine,
  exportEndLine,
  exportHeaderLine,
  prunedExportLine,
  type ExecutionRecord,
  type PrunedExecution,
} from '../core/chain/index.ts';
import { signedChain } from '../testing/trace-format.ts';
import { verifyCommand } from './verify.ts';

const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = createTraceSigner(pem);
const chain = signedChain(signer, 12, (seq) => (seq % 3 === 1 ? 'ten_free' : null));
const tombstone = (r: ExecutionRecord): PrunedExecution => ({
  pruned: true,
  seq: r.seq,
  id: r.id,
  prevHash: r.prevHash,
  hash: r.hash,
  keyId: r.keyId,
  signature: r.signature,
});

/** The whole-chain export of `chain` with the records `gone` pruned (their tombstone lines in their place). */
function exportWith(gone: (r: ExecutionRecord) => boolean, edit: (p: PrunedExecution) => PrunedExecution = (p) => p): string {
  const lines = chain.map((r) => (gone(r) ? prunedExportLine(edit(tombstone(r))) : executionExportLine(r)));
  const kept = chain.filter((r) => !gone(r)).length;
  return [exportHeaderLine({ from: 1, to: chain.length, tenantId: null }), ...lines, exportEndLine(kept)].map((l) => `${l}\n`).join('');
}

describe('suite verify of an export with records pruned under retention', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suite-verify-retention-'));
    await writeFile(join(dir, 'pub.pem'), signer.publicKeyPem);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await signer.close();
  });

  async function verify(text: string): Promise<{ code: number; out: string }> {
    await writeFile(join(dir, 'chain.trace'), text);
    let out = '';
    const sink = { write: (t: string) => (out += t) };
    const code = await verifyCommand([join(dir, 'chain.trace'), '--public-key', join(dir, 'pub.pem')], sink, sink);
    return { code, out };
  }

  it('verifies the records that remain as the continuation of the pruned ones, a pruned prefix and holes alike', async () => {
    const r = await verify(exportWith((rec) => rec.seq <= 3 || rec.seq % 3 === 1));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('verified: 6 record(s)');
    expect(r.out).toContain('6 record(s) pruned under retention');
  });

  it('refuses a pruned record whose signature over its hash does not verify', async () => {
    const other = createTraceSigner(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const forged = other.sign(chain[3]!.hash);
    await other.close();
    const r = await verify(
      exportWith(
        (rec) => rec.seq === 4,
        (p) => ({ ...p, signature: forged }),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain('NOT verified: seq 4');
    expect(r.out).toContain('signature does not verify');
  });

  it('refuses a pruned record whose hash is not the one the next record links to, or that stands at another place', async () => {
    const relinked = await verify(
      exportWith(
        (rec) => rec.seq === 4,
        (p) => ({ ...p, hash: chain[6]!.hash }),
      ),
    );
    expect(relinked.code).toBe(1);
    expect(relinked.out).toMatch(/NOT verified: seq (4|5)/);
    const moved = await verify(
      exportWith(
        (rec) => rec.seq === 4,
        (p) => ({ ...p, seq: 5 }),
      ),
    );
    expect(moved.code).toBe(1);
    expect(moved.out).toContain('record 4 is missing');
  });

  it('refuses a malformed pruned line', async () => {
    const r = await verify(
      exportWith(
        (rec) => rec.seq === 4,
        (p) => ({ ...p, hash: 'not a hash' }),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain('malformed line of a pruned record');
  });
});
