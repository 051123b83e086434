import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addCheckpoint,
  consistencyProof,
  cosignatureVerifier,
  ed25519Cosigner,
  formatCheckpoint,
  logKey,
  openCheckpoint,
  parseAddCheckpoint,
  signNote,
  type WitnessedLog,
} from './index.ts';
import { addCheckpointBody, tlogHistory } from '../../testing/tlog-history.ts';

const ORIGIN = 'suite.test/executions/log';
const log = logKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const impostor = logKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const cosigner = ed25519Cosigner('witness.test/w1', generateKeyPairSync('ed25519').privateKey);
const policy = { logs: new Map([[ORIGIN, [log.verifier]]]), cosigner };

const history = (prefix: string, n: number) => tlogHistory(ORIGIN, log, prefix, n);

/** A witness whose state lives in a map, applied as its durable store would apply it. */
function witness() {
  const state = new Map<string, WitnessedLog>();
  const evidence: string[] = [];
  const submit = (body: string) => {
    const req = parseAddCheckpoint(body);
    if (typeof req === 'string') return { status: 400, body: req };
    const d = addCheckpoint(req, (o) => state.get(o), policy, 1_800_000_000);
    if (d.next) state.set(d.next.origin, d.next.log);
    if (d.evidence) evidence.push(d.evidence.note);
    return d;
  };
  return { state, evidence, submit };
}
const body = addCheckpointBody;

describe('a witness (C2SP tlog-witness add-checkpoint)', () => {
  const real = history('real', 40);
  const fork = history('fork', 40);

  it('cosigns a first checkpoint, then a larger one shown consistent, and the cosignature verifies', () => {
    const w = witness();
    const first = w.submit(body(0, [], real.checkpoint(20)));
    expect(first.status).toBe(200);
    const second = w.submit(body(20, consistencyProof(20, 30, real.read), real.checkpoint(30)));
    expect(second.status).toBe(200);
    const cosigned = real.checkpoint(30) + second.body;
    const opened = openCheckpoint(cosigned, {
      log: log.verifier,
      origin: ORIGIN,
      witnesses: [cosignatureVerifier(cosigner.name, cosigner.publicKey)],
      quorum: 1,
    });
    expect(typeof opened === 'string' ? opened : opened.cosignedBy).toEqual(['witness.test/w1']);
    expect(w.state.get(ORIGIN)?.size).toBe(30);
  });

  it('refuses two different checkpoints of the same size (a split view) and keeps the second as evidence', () => {
    const w = witness();
    expect(w.submit(body(0, [], real.checkpoint(20))).status).toBe(200);
    const split = w.submit(body(20, [], fork.checkpoint(20)));
    expect(split.status).toBe(409);
    expect(w.evidence).toEqual([fork.checkpoint(20)]);
    expect(w.state.get(ORIGIN)?.root).toBe(real.roots[20]?.toString('base64'));
  });

  it('refuses a forked history larger than the one cosigned: its proof does not verify, and it is kept', () => {
    const w = witness();
    expect(w.submit(body(0, [], real.checkpoint(20))).status).toBe(200);
    const forked = w.submit(body(20, consistencyProof(20, 30, fork.read), fork.checkpoint(30)));
    expect(forked.status).toBe(422);
    expect(w.evidence).toHaveLength(1);
    expect(w.state.get(ORIGIN)?.size).toBe(20);
  });

  it("refuses a size-0 checkpoint whose root is not the empty tree's, keeps it as evidence, and cosigns the true empty root", () => {
    const w = witness();
    const sized0 = (root: string) => signNote(formatCheckpoint({ origin: ORIGIN, size: 0, root: Buffer.from(root, 'base64'), extensions: [] }), [log.signer]);
    // The two roots the probe of issue 31 had cosigned, each signed by the log's own key.
    for (const root of ['uzf69xCPkr29tZn42w2lmdZY5z6QgkH9cy02QwcI2Ho=', 'Df7Z5SFASRDMo6Ja/UutIyihVZw7qAlKdwL+sqvSKY8=']) {
      const refused = w.submit(body(0, [], sized0(root)));
      expect(refused.status, root).toBe(409);
      expect(refused.body).toContain('empty root');
    }
    expect(w.evidence).toHaveLength(2);
    expect(w.state.get(ORIGIN)).toBeUndefined();
    const empty = w.submit(body(0, [], sized0('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')));
    expect(empty.status).toBe(200);
    expect(w.state.get(ORIGIN)).toEqual({ size: 0, root: '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' });
    expect(w.submit(body(0, [], real.checkpoint(20))).status).toBe(200);
  });

  it('never cosigns a smaller tree after a larger one, and says which size it holds', () => {
    const w = witness();
    expect(w.submit(body(0, [], real.checkpoint(30))).status).toBe(200);
    const smaller = w.submit(body(0, [], real.checkpoint(20)));
    expect([smaller.status, smaller.body]).toEqual([409, '30\n']);
    expect(w.submit(body(30, [], real.checkpoint(20))).status).toBe(400);
  });

  it('refuses a checkpoint signed by another key (403), of an unknown log (404), or malformed (400)', () => {
    const w = witness();
    expect(w.submit(body(0, [], real.checkpoint(20, impostor))).status).toBe(403);
    const other = signNote(formatCheckpoint({ origin: 'other.test/log', size: 1, root: real.roots[1] as Buffer, extensions: [] }), [log.signer]);
    expect(w.submit(body(0, [], other)).status).toBe(404);
    for (const b of ['old 01\n\nx', 'old 1\nnot-base64\n\nx', 'old 1', `old 0\n${'AAAA\n'.repeat(3)}\nx`]) expect(w.submit(b).status, b).toBe(400);
    expect(w.state.size).toBe(0);
  });
});
