import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, executionHash, GENESIS_HASH, hashCanonical, type ExecutionFields } from '../core/chain/index.ts';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import {
  acquireChainLease,
  currentTraceKey,
  executionHashAt,
  executionsPageAfter,
  findExecutionByIdempotencyKey,
  findTraceKeys,
  getExecution,
  insertExecutions,
  registerTraceKey,
  type NewExecution,
} from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

// Text that Postgres and RFC 8785 accept (no NUL; fast-check's strings are well-formed UTF-16).
const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\u0000'));
const cost = fc.option(
  fc.record(
    {
      amount: fc.maxSafeNat(),
      currency: fc.constantFrom('EUR', 'USD', 'JPY'),
      source: text.filter((s) => s.length > 0),
      unit: fc.option(text, { nil: undefined }),
      quantity: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
    },
    { requiredKeys: ['amount', 'currency', 'source'] },
  ),
  { nil: null },
);
const governance = fc.option(
  fc.record(
    {
      policyRef: text,
      policyVersion: text,
      decision: text,
      evidence: fc.array(text, { maxLength: 4 }),
      evaluatedBy: text,
    },
    { requiredKeys: [] },
  ),
  { nil: null },
);
const attested = fc.record({
  jti: fc.option(fc.uuid(), { nil: null }),
  sub: text,
  scope: fc.array(text, { maxLength: 3 }),
  proven: fc.boolean(),
  tenantId: fc.option(text, { nil: null }),
});

let counter = 0;
function row(seq: number, prevHash: string, c: { cost: unknown; governance: unknown; attested: unknown; subject: string }): NewExecution {
  const fields = {
    seq,
    id: `exec_${(counter++).toString(16).padStart(32, '0')}`,
    timestamp: new Date(1_750_000_000_000 + seq).toISOString(),
    subject: c.subject,
    scope: ['a:b'],
    module: 'm',
    action: 'a',
    outcome: 'success',
    inputHash: hashCanonical(seq),
    outputHash: null,
    cost: c.cost,
    governance: c.governance,
    attested: c.attested,
    prevHash,
    keyId: 'ed25519-0000000000000000',
  } as ExecutionFields;
  return { ...fields, hash: executionHash(fields), signature: 'c2ln', idempotencyKey: seq % 2 ? `key-${seq}` : null };
}

describe.each(storageKinds())('execution storage on $kind', ({ open }) => {
  let t: TestStorage;
  beforeAll(async () => {
    t = await open();
  }, machineTimeout(60_000));
  afterAll(() => t?.dispose());

  let seq = 0;
  let prev = GENESIS_HASH;

  it('round-trips cost, governance and attested exactly: every record read back hashes as it was written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ cost, governance, attested, subject: text }), { minLength: 1, maxLength: 8 }), async (claims) => {
        const batch = claims.map((c) => {
          const r = row(++seq, prev, c);
          prev = r.hash;
          return r;
        });
        await t.storage.pool.transaction((tx) => insertExecutions(tx, batch));
        const back = await executionsPageAfter(t.storage.pool, batch[0]!.seq - 1, batch.length);
        expect(back.map((r) => executionHash(r))).toEqual(batch.map((r) => r.hash));
        expect(back.map((r) => canonicalJson(r))).toEqual(batch.map(({ idempotencyKey: _, ...r }) => canonicalJson(r)));
      }),
      { numRuns: 40 },
    );
  });

  it('finds a record by id, by (token subject, idempotency key), and the hash at a sequence number', async () => {
    const r = {
      ...row(++seq, prev, { cost: null, governance: null, attested: { jti: null, sub: 'who', scope: [], proven: false, tenantId: 't1' }, subject: 's' }),
      idempotencyKey: 'key-find',
    };
    prev = r.hash;
    await insertExecutions(t.storage.pool, [r]);
    const { idempotencyKey: _, ...record } = r;
    expect(await getExecution(t.storage.pool, r.id)).toEqual(record);
    expect(await findExecutionByIdempotencyKey(t.storage.pool, 'who', 'key-find')).toEqual(record);
    expect(await findExecutionByIdempotencyKey(t.storage.pool, 'someone-else', 'key-find')).toBeNull();
    expect(await executionHashAt(t.storage.pool, r.seq)).toBe(r.hash);
    expect(await getExecution(t.storage.pool, 'exec_missing')).toBeNull();
  });

  it('refuses a second record extending the same predecessor (no fork)', async () => {
    const a = row(seq + 1, prev, { cost: null, governance: null, attested: { jti: null, sub: 'x', scope: [], proven: false, tenantId: null }, subject: 'a' });
    const b = {
      ...row(seq + 2, prev, { cost: null, governance: null, attested: { jti: null, sub: 'x', scope: [], proven: false, tenantId: null }, subject: 'b' }),
    };
    await expect(insertExecutions(t.storage.pool, [a, b])).rejects.toThrow();
  });

  it('publishes trace keys: current is the latest to lead; an ephemeral key is usable only while its holder leads', async () => {
    const pem = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const configured = { keyId: 'ed25519-aaaaaaaaaaaaaaaa', publicKeyPem: pem(), ephemeral: false, holder: 'h1' };
    const ephemeral = { keyId: 'ed25519-bbbbbbbbbbbbbbbb', publicKeyPem: pem(), ephemeral: true, holder: 'h2' };
    expect(await registerTraceKey(t.storage.pool, configured)).toBe(true);
    expect(await registerTraceKey(t.storage.pool, ephemeral)).toBe(true);
    expect(await registerTraceKey(t.storage.pool, { ...configured, publicKeyPem: pem() })).toBe(false);
    expect((await currentTraceKey(t.storage.pool))?.keyId).toBe(ephemeral.keyId);
    const usable = async () => Object.fromEntries((await findTraceKeys(t.storage.pool, [configured.keyId, ephemeral.keyId])).map((k) => [k.keyId, k.usable]));
    expect(await usable()).toEqual({ [configured.keyId]: true, [ephemeral.keyId]: false });
    expect(await acquireChainLease(t.storage.pool, 'executions', 'h2', 60_000)).not.toBeNull();
    expect(await usable()).toEqual({ [configured.keyId]: true, [ephemeral.keyId]: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await registerTraceKey(t.storage.pool, { ...configured, holder: 'h3' })).toBe(true);
    expect(await currentTraceKey(t.storage.pool)).toMatchObject({ keyId: configured.keyId, holder: 'h3', usable: true });
  });
});
