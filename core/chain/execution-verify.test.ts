import { describe, expect, it } from 'vitest';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createTraceSigner, ExecutionChainVerifier, type ExecutionRecord, type TraceSigner } from './index.ts';
import { signedChain } from '../../testing/trace-format.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const chain = signedChain;

function verify(records: ExecutionRecord[], signer: TraceSigner, head?: { seq: number; hash: string }) {
  const key = createPublicKey(signer.publicKeyPem);
  const v = new ExecutionChainVerifier((id) => (id === signer.keyId ? key : undefined));
  for (const r of records) if (!v.push(r)) break;
  return v.finish(head);
}

describe('execution chain verification', () => {
  const signer = createTraceSigner(pem());
  const records = chain(signer, 50);
  const head = { seq: 50, hash: records[49]!.hash };

  it('accepts an untouched chain', () => {
    expect(verify(records, signer, head)).toEqual({ valid: true, checked: 50, headHash: head.hash });
  });

  it('reports an edited field as content not intact, at its sequence number', () => {
    const edited = records.map((r) => (r.seq === 17 ? { ...r, outcome: 'success' === r.outcome ? 'failure' : 'success' } : r));
    expect(verify(edited, signer, head)).toMatchObject({ valid: false, brokenAt: 17, brokenId: records[16]!.id, contentIntact: false });
  });

  it('reports a record signed with another key as content intact', () => {
    const other = createTraceSigner(pem());
    const resigned = records.map((r) => (r.seq === 9 ? { ...r, signature: other.sign(r.hash) } : r));
    expect(verify(resigned, signer, head)).toMatchObject({
      valid: false,
      brokenAt: 9,
      contentIntact: true,
      reason: 'signature does not verify against the public key',
    });
  });

  it('reports a deleted record at its position and a truncated tail against the head', () => {
    expect(
      verify(
        records.filter((r) => r.seq !== 30),
        signer,
        head,
      ),
    ).toMatchObject({ valid: false, brokenAt: 30, contentIntact: true });
    expect(verify(records.slice(0, 40), signer, head)).toMatchObject({ valid: false, brokenAt: 41, contentIntact: true });
  });

  it('marks an ephemeral signer and refuses a non-Ed25519 key', () => {
    expect(createTraceSigner(undefined).ephemeral).toBe(true);
    expect(signer.ephemeral).toBe(false);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => createTraceSigner(rsa)).toThrow(/Ed25519/);
  });
});
