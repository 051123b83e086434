import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { mintToken, verifyToken } from '../../actors/capability/index.ts';
import { createHmacKeyRing } from '../../core/capability/index.ts';
import {
  createTraceSigner,
  ed25519PublicKey,
  ExecutionChainVerifier,
  executionHash,
  GENESIS_HASH,
  sha256Hex,
  verifyHashSignature,
  type ExecutionFields,
  type ExecutionRecord,
} from '../../core/chain/index.ts';
import { explainRecord } from '../../core/assessment/index.ts';
import { summarizeLatencies, type LatencySummary } from '../../core/bench/index.ts';

/**
 * The suite's own core operations, measured in the runner (POST /bench/core): token issue and
 * validation, a trace append (build, hash and sign the next record), verifying one record, verifying
 * a chain of N, and explaining a record. Each runs on throw-away keys and records in memory, never on
 * the suite's chains: a benchmark must not write synthetic records into a tamper-evident history.
 */
export const CORE_OPERATIONS = ['tokenIssue', 'tokenValidate', 'traceAppend', 'verifyRecord', 'verifyChain', 'explain'] as const;
export type CoreOperation = (typeof CORE_OPERATIONS)[number];

export interface CoreSettings {
  iterations: number;
  chainLength: number;
}

export interface CoreOperationResult {
  summary: LatencySummary;
  opsPerSecond: number;
  samplesMs: number[];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

async function timed(iterations: number, op: (i: number) => unknown): Promise<CoreOperationResult> {
  const samples: number[] = [];
  // Warm-up: the first calls pay for JIT compilation and lazy initialisation.
  for (let i = 0; i < Math.min(20, iterations); i++) await op(i);
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await op(i);
    samples.push(round3(performance.now() - t));
  }
  const wall = performance.now() - start;
  return { summary: summarizeLatencies(samples), opsPerSecond: round3((iterations / wall) * 1000), samplesMs: samples };
}

export async function runCoreBench(s: CoreSettings, signal: AbortSignal): Promise<Record<CoreOperation, CoreOperationResult>> {
  const ring = await createHmacKeyRing([randomBytes(32).toString('hex')]);
  const signer = createTraceSigner(undefined);
  const publicKey = ed25519PublicKey(signer.publicKeyPem);
  const keys = (keyId: string) => (keyId === signer.keyId ? publicKey : undefined);
  const now = () => Math.floor(Date.now() / 1000);
  const token = (await mintToken(ring, { sub: 'bench', scope: ['bench:run'], lifetimeSeconds: 600, now: now() })).token;

  let head = { seq: 0, hash: GENESIS_HASH };
  const append = (seq: number, prevHash: string): ExecutionRecord => {
    const fields: ExecutionFields = {
      seq,
      id: `exec_${randomUUID().replaceAll('-', '')}`,
      timestamp: new Date().toISOString(),
      subject: 'bench-agent',
      scope: ['bench:run'],
      module: 'bench',
      action: 'measure',
      outcome: 'success',
      inputHash: sha256Hex(`input ${seq}`),
      outputHash: sha256Hex(`output ${seq}`),
      cost: { amount: 12, currency: 'USD', source: 'bench' },
      governance: null,
      attested: { jti: null, sub: 'bench', scope: ['bench:run'], proven: false, tenantId: null },
      prevHash,
      keyId: signer.keyId,
    };
    const hash = executionHash(fields);
    return { ...fields, hash, signature: signer.sign(hash) };
  };
  const chain: ExecutionRecord[] = [];
  for (let i = 1; i <= s.chainLength; i++) chain.push(append(i, chain.at(-1)?.hash ?? GENESIS_HASH));
  const one = chain[0]!;

  const results = {} as Record<CoreOperation, CoreOperationResult>;
  const step = async (name: CoreOperation, op: (i: number) => unknown, iterations = s.iterations) => {
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    results[name] = await timed(iterations, op);
  };
  await step('tokenIssue', () => mintToken(ring, { sub: 'bench', scope: ['bench:run'], lifetimeSeconds: 600, now: now() }));
  await step('tokenValidate', async () => {
    const r = await verifyToken(ring, token, { now: now() });
    if (!r.ok) throw new Error('the benchmark token did not validate');
  });
  await step('traceAppend', () => {
    const r = append(head.seq + 1, head.hash);
    head = { seq: r.seq, hash: r.hash };
  });
  await step('verifyRecord', () => {
    if (executionHash(one) !== one.hash || !verifyHashSignature(publicKey, one.hash, one.signature)) throw new Error('record did not verify');
  });
  // A whole chain per iteration: fewer iterations, so a run stays short.
  await step(
    'verifyChain',
    () => {
      const v = new ExecutionChainVerifier(keys);
      for (const r of chain) v.push(r);
      if (!v.finish().valid) throw new Error('chain did not verify');
    },
    Math.max(5, Math.min(s.iterations, Math.floor(200_000 / s.chainLength))),
  );
  await step('explain', () => explainRecord(one));
  await signer.close();
  return results;
}
