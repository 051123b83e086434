/**
 * Fills a storage with a valid execution chain of `n` records, signed with a key of its own that it
 * publishes (non-ephemeral), so that a suite started on that storage verifies them. For the
 * verification benchmark: a million records through HTTP would take the better part of an hour.
 * The records have the shape POST /executions makes (cost, governance, attested) and are inserted
 * with the writer's own insert, 1,000 per transaction.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { createTraceSigner, executionHash, GENESIS_HASH, hashCanonical, type ExecutionFields, type ExecutionRecord } from '../core/chain/index.ts';
import { ensureChainHead, insertExecutions, openStorage, registerTraceKey } from '../storage/index.ts';

const BATCH = 1000;

/** `place`: the embedded database's folder, or a Postgres URL. */
export async function fillExecutionChain(place: { dbPath: string } | { databaseUrl: string }, n: number, privateKeyPem: string): Promise<void> {
  const storage = await openStorage(place);
  try {
    const signer = createTraceSigner(privateKeyPem);
    await registerTraceKey(storage.pool, { keyId: signer.keyId, publicKeyPem: signer.publicKeyPem, ephemeral: false, holder: 'bench-fill' });
    await ensureChainHead(storage.pool, 'executions', GENESIS_HASH);
    let prev = GENESIS_HASH;
    const t0 = Date.now();
    for (let from = 1; from <= n; from += BATCH) {
      const batch: (ExecutionRecord & { idempotencyKey: null })[] = [];
      for (let seq = from; seq < Math.min(from + BATCH, n + 1); seq++) {
        const f: ExecutionFields = {
          seq,
          id: `exec_${randomBytes(16).toString('hex')}`,
          timestamp: new Date(t0 + seq).toISOString(),
          subject: `agent-${seq % 50}`,
          scope: ['crm:write'],
          module: 'crm',
          action: 'update-contact',
          outcome: seq % 10 ? 'success' : 'failure',
          inputHash: hashCanonical({ seq }),
          outputHash: hashCanonical({ ok: seq }),
          cost: seq % 3 ? { amount: 120 + (seq % 7), currency: 'EUR', source: 'provider-invoice' } : null,
          governance: seq % 2 ? { policyRef: 'crm-policy', policyVersion: '3', decision: 'PERMITTED', evidence: ['ticket-1'], evaluatedBy: 'opa' } : null,
          attested: { jti: null, sub: 'bench-agent', scope: ['execution:record'], proven: false, tenantId: null },
          prevHash: prev,
          keyId: signer.keyId,
        };
        const hash = executionHash(f);
        batch.push({ ...f, hash, signature: signer.sign(hash), idempotencyKey: null });
        prev = hash;
      }
      const last = batch[batch.length - 1] as ExecutionRecord;
      await storage.pool.transaction(async (tx) => {
        await insertExecutions(tx, batch);
        await tx.query(sql.unsafe`update chain_heads set seq = ${last.seq}, hash = ${last.hash} where chain = 'executions'`);
      });
    }
  } finally {
    await storage.close();
  }
}
