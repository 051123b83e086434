import fc from 'fast-check';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTraceSigner, executionHash, ExecutionChainVerifier, precompute, type ExecutionRecord } from '../../../core/chain/index.ts';
import { signedChain } from '../../../testing/trace-format.ts';
import { ChainJoin } from './verify-join.ts';
import { RunJudge } from './verify-scan.ts';
import { scannedRow } from '../../../testing/verify-rows.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = createTraceSigner(pem());
const forger = createTraceSigner(pem());
const keys = new Map([[signer.keyId, createPublicKey(signer.publicKeyPem)]]);
const lookup = (keyId: string) => keys.get(keyId);
const N = 24;
const chain = signedChain(signer, N);
const head = { seq: N, hash: chain[N - 1]!.hash };
/** Another chain by the same key: its records are intact, and link to each other only. */
const fork = signedChain(signer, N)
  .map((r) => ({ ...r, subject: `${r.subject}-fork` }))
  .map((r) => {
    const hash = executionHash(r);
    return { ...r, hash, signature: signer.sign(hash) };
  });

/** What someone with write access to the table can do to the chain (record positions 0 to N-1). */
const tamper = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(N - 1), with: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('resign' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('forge' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('move beyond the head' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('cut the tail' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('splice from a fork' as const), at: fc.nat(N - 1) }),
  fc.record({ kind: fc.constant('skip a seq, signed' as const), at: fc.integer({ min: 1, max: N - 2 }) }),
  fc.record({ kind: fc.constant('none' as const) }),
);
type Tamper = typeof tamper extends fc.Arbitrary<infer T> ? T : never;

function tampered(t: Tamper): ExecutionRecord[] {
  const rs = chain.map((r) => ({ ...r }));
  const reseal = (r: ExecutionRecord, by = forger, keyId = r.keyId) => {
    const hash = executionHash({ ...r, keyId });
    return { ...r, keyId, hash, signature: by.sign(hash) };
  };
  switch (t.kind) {
    case 'edit':
      rs[t.at] = { ...rs[t.at]!, outcome: `${rs[t.at]!.outcome}!` };
      break;
    case 'delete':
      rs.splice(t.at, 1);
      break;
    case 'swap':
      [rs[t.at]!.seq, rs[t.with]!.seq] = [rs[t.with]!.seq, rs[t.at]!.seq];
      break;
    case 'duplicate':
      rs.splice(t.at, 0, { ...rs[t.at]!, id: 'exec_copy' });
      break;
    case 'resign':
      rs[t.at] = reseal(rs[t.at]!);
      break;
    case 'forge':
      rs[t.at] = reseal(rs[t.at]!, forger, forger.keyId);
      break;
    case 'move beyond the head':
      rs[t.at]!.seq = N + 100;
      break;
    case 'cut the tail':
      rs.splice(t.at);
      break;
    // Intact and at its place, but linked to nothing of this chain.
    case 'splice from a fork':
      rs[t.at] = { ...fork[t.at]! };
      break;
    // Intact and linked to the record before it, but one seq too far (signed so: a faulty writer).
    case 'skip a seq, signed':
      rs[t.at] = reseal({ ...rs[t.at]!, seq: rs[t.at]!.seq + 1 }, signer);
      rs.splice(t.at + 1, 1);
      break;
    case 'none':
      break;
  }
  // As the table gives them: in seq order (a stable sort keeps duplicates in insertion order).
  return rs.sort((a, b) => a.seq - b.seq);
}

/** Today's walk: ExecutionChainVerifier over the rows after the last one seen, up to the head. */
function reference(rows: ExecutionRecord[]) {
  const v = new ExecutionChainVerifier(lookup);
  let after = 0;
  walk: while (after < head.seq) {
    const page = rows.filter((r) => r.seq > after).slice(0, head.seq - after);
    if (page.length === 0) break;
    for (const r of page) if (!v.push(r, precompute(r, lookup))) break walk;
    after = page[page.length - 1]!.seq;
  }
  return v.finish(head);
}

/** The threads' way: ranges of seq cut into jobs, judged by RunJudge, joined in order, then the tail. */
function joined(rows: ExecutionRecord[], cuts: number[]) {
  const join = new ChainJoin(lookup);
  const bounds = [...new Set([0, ...cuts.map((c) => c % N), N])].sort((a, b) => a - b);
  let broken = false;
  for (let i = 0; i + 1 < bounds.length && !broken; i++) {
    const judge = new RunJudge(lookup);
    for (const r of rows.filter((x) => x.seq > bounds[i]! && x.seq <= bounds[i + 1]!)) if (!judge.push(scannedRow(r))) break;
    broken = !join.take(judge.summary());
  }
  if (!broken && join.lastSeq < head.seq) {
    const beyond = rows.find((r) => r.seq > join.lastSeq);
    if (beyond) join.push(beyond);
  }
  return join.finish(head);
}

describe('joining the runs verification threads found', () => {
  it('gives the verdict of the record-by-record walk, however the chain is cut into jobs and whatever was done to it', () => {
    fc.assert(
      fc.property(tamper, fc.array(fc.nat(N), { maxLength: 6 }), (t, cuts) => {
        const rows = tampered(t);
        expect(joined(rows, cuts)).toEqual(reference(rows));
      }),
      { numRuns: 400 },
    );
  });

  it('takes an intact run whole without judging its records one by one', () => {
    const join = new ChainJoin(() => undefined);
    const judge = new RunJudge(lookup);
    for (const r of chain) judge.push(scannedRow(r));
    // With no key to look up, a record judged here would fail: the run is taken on the thread's word.
    expect(join.take(judge.summary())).toBe(true);
    expect(join.finish(head)).toEqual({ valid: true, checked: N, headHash: head.hash });
  });

  it('stops at a run that does not continue the chain, and says why', () => {
    const join = new ChainJoin(lookup);
    const judge = new RunJudge(lookup);
    for (const r of chain.slice(4, 9)) judge.push(scannedRow(r));
    expect(join.take(judge.summary())).toBe(false);
    expect(join.finish(head)).toEqual({
      valid: false,
      checked: 0,
      headHash: head.hash,
      brokenAt: 1,
      brokenId: chain[4]!.id,
      reason: 'record 1 is missing (found 5)',
      contentIntact: true,
    });
  });

  it("refuses to take a thread's word for a break the walk does not find", () => {
    const join = new ChainJoin(lookup);
    const r = chain[0]!;
    expect(() => join.take({ count: 1, verified: 0, first: r, firstChecks: 0, lastHash: '', broken: { record: r, checks: 3 } })).toThrow(
      /found record 1 broken, the walk did not/,
    );
  });
});
