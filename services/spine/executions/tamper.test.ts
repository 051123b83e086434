import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { executionsPageAfter, insertExecutions, registerTraceKey } from '../../../storage/index.ts';
import { subjects } from '../../../bus/index.ts';
import { createTraceSigner, executionHash, hashCanonical, type ExecutionRecord } from '../../../core/chain/index.ts';
import { startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/**
 * The tamper corpus (issue 3): a chain of 1,000 records made by the real writer, then, one case at a
 * time on a restored copy, every signed field of one record changed, a record deleted, two swapped,
 * one inserted, one re-signed with another key. Each must be reported at the right sequence number
 * with the right `contentIntact` (spec, "Chain verification result").
 *
 * The swap case: exchanging two records' positions means giving each the other's `seq`, and `seq`
 * is signed, so the record found at the first position no longer matches its hash:
 * `contentIntact: false`. A record whose `seq` is moved out of the chain leaves a gap instead:
 * nothing claims that position, and what the verifier meets there is the next, intact record.
 */
const N = 1000;
const K = 500;
const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const attacker = createTraceSigner(pem());

type Expect = { brokenAt: number; contentIntact: boolean; reason: RegExp };
const edited: Expect = { brokenAt: K, contentIntact: false, reason: /content does not match its hash/ };
const missing = (at: number): Expect => ({ brokenAt: at, contentIntact: true, reason: /missing/ });
const badSignature: Expect = { brokenAt: K, contentIntact: true, reason: /signature does not verify/ };

describe.each(storageKinds())('tamper corpus on a chain of 1,000 records on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  let chain: ExecutionRecord[];
  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({ storage: db.storage, tracePrivateKeyPem: pem() });
    for (let i = 0; i < N; i += 250) {
      await Promise.all(
        Array.from({ length: 250 }, (_, j) =>
          h.bus.request(
            subjects.executionsRecord,
            {
              claim: {
                subject: `agent-${(i + j) % 7}`,
                scope: ['crm:write'],
                module: 'crm',
                action: 'update',
                outcome: (i + j) % 5 ? 'success' : 'failure',
                inputHash: hashCanonical({ n: i + j }),
                outputHash: hashCanonical({ out: i + j }),
                cost: { amount: 100 + j, currency: 'EUR', source: 'invoice', unit: 'tokens', quantity: 1.5 },
                governance: { policyRef: 'p', policyVersion: '1', decision: 'PERMITTED', evidence: ['e'], evaluatedBy: 'opa' },
              },
              attested: { jti: `jti-${i + j}`, sub: 'recorder', scope: ['execution:record'], proven: false, tenantId: 'ten_a' },
              timestamp: new Date().toISOString(),
            },
            { timeoutMs: 60_000 },
          ),
        ),
      );
    }
    chain = await executionsPageAfter(db.storage.pool, 0, N + 1);
    expect(chain).toHaveLength(N);
    await db.storage.pool.query(sql.unsafe`create table executions_pristine as select * from executions`);
  }, machineTimeout(120_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  const pool = () => db.storage.pool;
  const at = (seq: number) => chain[seq - 1] as ExecutionRecord;
  /** Replace the stored record at `seq` by `r` (as someone with write access to the database would). */
  const put = async (seq: number, r: ExecutionRecord) => {
    await pool().query(sql.unsafe`delete from executions where seq = ${seq}`);
    await insertExecutions(pool(), [{ ...r, idempotencyKey: null }]);
  };
  const edit = (change: (r: ExecutionRecord) => Partial<ExecutionRecord>) => () => put(K, { ...at(K), ...change(at(K)) });
  /** Re-seal a record as a forger would: a hash that matches its content, signed with the attacker's key. */
  const forge = (r: ExecutionRecord, keyId: string): ExecutionRecord => {
    const hash = executionHash({ ...r, keyId });
    return { ...r, keyId, hash, signature: attacker.sign(hash) };
  };
  const shiftFrom = async (seq: number) => {
    await pool().query(sql.unsafe`update executions set seq = seq + 10000000 where seq >= ${seq}`);
    await pool().query(sql.unsafe`update executions set seq = seq - 10000000 + 1 where seq >= 10000000`);
  };

  const cases: Array<[string, () => Promise<unknown>, Expect]> = [
    ['id changed', edit(() => ({ id: `exec_${'f'.repeat(32)}` })), edited],
    ['timestamp changed', edit(() => ({ timestamp: '2030-01-01T00:00:00.000Z' })), edited],
    ['subject changed', edit((r) => ({ subject: `${r.subject}x` })), edited],
    ['scope changed', edit((r) => ({ scope: [...r.scope, 'admin:*'] })), edited],
    ['module changed', edit(() => ({ module: 'billing' })), edited],
    ['action changed', edit(() => ({ action: 'delete' })), edited],
    ['outcome changed', edit((r) => ({ outcome: r.outcome === 'success' ? 'failure' : 'success' })), edited],
    ['inputHash changed', edit(() => ({ inputHash: 'a'.repeat(64) })), edited],
    ['outputHash removed', edit(() => ({ outputHash: null })), edited],
    ['cost.amount changed', edit((r) => ({ cost: { ...r.cost!, amount: r.cost!.amount + 1 } })), edited],
    ['cost.currency changed', edit((r) => ({ cost: { ...r.cost!, currency: 'USD' } })), edited],
    ['cost.quantity changed', edit((r) => ({ cost: { ...r.cost!, quantity: 1.5000001 } })), edited],
    ['cost removed', edit(() => ({ cost: null })), edited],
    ['governance.decision changed', edit((r) => ({ governance: { ...r.governance!, decision: 'DENIED' } })), edited],
    ['governance removed', edit(() => ({ governance: null })), edited],
    ['attested.jti changed', edit((r) => ({ attested: { ...r.attested, jti: 'other' } })), edited],
    ['attested.sub changed', edit((r) => ({ attested: { ...r.attested, sub: 'someone-else' } })), edited],
    ['attested.scope changed', edit((r) => ({ attested: { ...r.attested, scope: ['*'] } })), edited],
    ['attested.proven changed', edit((r) => ({ attested: { ...r.attested, proven: true } })), edited],
    ['attested.tenantId changed', edit((r) => ({ attested: { ...r.attested, tenantId: 'ten_b' } })), edited],
    ['prevHash changed', edit(() => ({ prevHash: 'c'.repeat(64) })), edited],
    ['keyId changed', edit(() => ({ keyId: 'ed25519-ffffffffffffffff' })), edited],
    ['stored hash changed', edit(() => ({ hash: 'd'.repeat(64) })), edited],
    ['seq moved out of the chain (a gap at its position)', edit(() => ({ seq: 5_000_000 })), missing(K)],
    ['a record deleted', () => pool().query(sql.unsafe`delete from executions where seq = ${K}`), missing(K)],
    ['the last record deleted (the head names it)', () => pool().query(sql.unsafe`delete from executions where seq = ${N}`), missing(N)],
    [
      'two records swapped (their seq exchanged)',
      async () => {
        await pool().query(sql.unsafe`update executions set seq = 9000000 where seq = ${K}`);
        await pool().query(sql.unsafe`update executions set seq = ${K} where seq = ${K + 7}`);
        await pool().query(sql.unsafe`update executions set seq = ${K + 7} where seq = 9000000`);
      },
      { brokenAt: K, contentIntact: false, reason: /content does not match its hash/ },
    ],
    [
      'one record inserted, linked and hashed correctly but signed by another key under our keyId',
      async () => {
        await pool().query(sql.unsafe`alter table executions drop constraint executions_prev_hash_key`);
        await shiftFrom(K);
        const fake = forge({ ...at(K), seq: K, id: `exec_${'e'.repeat(32)}`, subject: 'intruder', prevHash: at(K - 1).hash }, at(K).keyId);
        await insertExecutions(pool(), [{ ...fake, idempotencyKey: null }]);
      },
      badSignature,
    ],
    [
      "one record inserted under the forger's own (unpublished) key",
      async () => {
        await pool().query(sql.unsafe`alter table executions drop constraint executions_prev_hash_key`);
        await shiftFrom(K);
        const fake = forge({ ...at(K), seq: K, id: `exec_${'e'.repeat(32)}`, prevHash: at(K - 1).hash }, attacker.keyId);
        await insertExecutions(pool(), [{ ...fake, idempotencyKey: null }]);
      },
      { brokenAt: K, contentIntact: true, reason: /no public key for keyId/ },
    ],
    ['one record re-signed with another key (same keyId)', edit((r) => ({ signature: attacker.sign(r.hash) })), badSignature],
    [
      "one record re-sealed under another key's keyId",
      () => put(K, forge(at(K), attacker.keyId)),
      { brokenAt: K, contentIntact: true, reason: /no public key for keyId/ },
    ],
    [
      'one record re-sealed under a key the forger also published (caught by the next link)',
      async () => {
        await registerTraceKey(pool(), { keyId: attacker.keyId, publicKeyPem: attacker.publicKeyPem, ephemeral: false, holder: 'forger' });
        await put(K, forge(at(K), attacker.keyId));
      },
      { brokenAt: K + 1, contentIntact: true, reason: /prevHash does not link/ },
    ],
  ];

  it('verifies the untouched chain', async () => {
    expect(await verifyChain()).toEqual({ mode: 'chain', valid: true, checked: N, headHash: at(N).hash });
  });

  it.each(cases)('detects "%s" at the right sequence number with the right contentIntact', async (_name, tamper, want) => {
    await restore();
    await tamper();
    const result = await verifyChain();
    expect(result, JSON.stringify(result)).toMatchObject({ valid: false, brokenAt: want.brokenAt, contentIntact: want.contentIntact, headHash: at(N).hash });
    expect(result.reason).toMatch(want.reason);
    expect(result.checked).toBe(want.brokenAt - 1);
  });

  it('catches a re-sealed record under a forger-published key when the auditor pins the real public key', async () => {
    await restore();
    await registerTraceKey(pool(), { keyId: attacker.keyId, publicKeyPem: attacker.publicKeyPem, ephemeral: false, holder: 'forger' });
    await put(K, forge(at(K), attacker.keyId));
    const published = (await h.app.inject({ method: 'GET', url: `/executions/public-key?keyId=${at(1).keyId}` })).json();
    const res = await h.app.inject({ method: 'POST', url: '/executions/verify', payload: { publicKey: published.publicKey } });
    expect(res.json()).toMatchObject({ valid: false, brokenAt: K, contentIntact: true, reason: 'signature does not verify against the public key' });
  });

  async function restore(): Promise<void> {
    await pool().query(sql.unsafe`delete from trace_keys where holder = 'forger'`);
    await pool().query(sql.unsafe`truncate executions`);
    await pool().query(sql.unsafe`insert into executions select * from executions_pristine`);
    await pool().query(sql.unsafe`alter table executions drop constraint if exists executions_prev_hash_key`);
    await pool().query(sql.unsafe`alter table executions add constraint executions_prev_hash_key unique (prev_hash)`);
  }

  async function verifyChain() {
    const token = await h.token(['execution:read']);
    const res = await h.app.inject({ method: 'GET', url: '/executions-verify-chain', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    return res.json() as { valid: boolean; checked: number; brokenAt?: number; contentIntact?: boolean; reason?: string; headHash: string };
  }
});
