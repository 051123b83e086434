import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceSigner, GENESIS_HASH } from '../../../core/chain/index.ts';
import { signedChain } from '../../../testing/trace-format.ts';
import { ensureChainHead, insertExecutions, registerTraceKey } from '../../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { VerificationKeys } from './keys.ts';
import { verifyExecutionChain } from './verify.ts';
import { VerifyPool } from './verify-pool.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * Breaks at and around the edges of the threads' jobs (500 records each) and at the ends of the
 * chain, on both storages (on Postgres the threads read over connections of their own). The tamper
 * corpus (tamper.test.ts) covers every kind of break through the API.
 */
describe.each(storageKinds())('whole-chain verification across the jobs of its threads on $kind', ({ kind, open }) => {
  const N = 1205;
  const signer = createTraceSigner(pem());
  const chain = signedChain(signer, N);
  const pool = new VerifyPool(2);
  let t: TestStorage;
  beforeAll(async () => {
    t = await open();
    const db = t.storage.pool;
    await registerTraceKey(db, { keyId: signer.keyId, publicKeyPem: signer.publicKeyPem, ephemeral: false, holder: 'test' });
    await insertExecutions(
      db,
      chain.map((r) => ({ ...r, idempotencyKey: null })),
    );
    await ensureChainHead(db, 'executions', GENESIS_HASH);
    await db.query(sql.unsafe`update chain_heads set seq = ${N}, hash = ${chain[N - 1]!.hash} where chain = 'executions'`);
    await db.query(sql.unsafe`create table executions_pristine as select * from executions`);
  }, machineTimeout(60_000));
  afterAll(async () => {
    await pool.close();
    await t?.dispose();
  });

  const verify = () => {
    const db = t.storage.pool;
    return verifyExecutionChain(db, VerificationKeys.published(db), pool, { databaseUrl: kind === 'postgres' ? db.configuration.connectionUri : undefined });
  };
  const restore = async () => {
    await t.storage.pool.query(sql.unsafe`truncate executions`);
    await t.storage.pool.query(sql.unsafe`insert into executions select * from executions_pristine`);
  };

  it('verifies the untouched chain', async () => {
    expect(await verify()).toEqual({ mode: 'chain', valid: true, checked: N, headHash: chain[N - 1]!.hash });
  });

  it.each([1, 2, 499, 500, 501, 1000, 1001, 1204, N])('finds a record edited at %i, and checks exactly those before it', async (seq) => {
    await restore();
    await t.storage.pool.query(sql.unsafe`update executions set outcome = 'edited' where seq = ${seq}`);
    expect(await verify()).toEqual({
      mode: 'chain',
      valid: false,
      checked: seq - 1,
      headHash: chain[N - 1]!.hash,
      brokenAt: seq,
      brokenId: chain[seq - 1]!.id,
      reason: 'content does not match its hash',
      contentIntact: false,
    });
  });

  it.each([1, 500, 501, 1001])('finds the record missing at %i and names the one found there', async (seq) => {
    await restore();
    await t.storage.pool.query(sql.unsafe`delete from executions where seq = ${seq}`);
    expect(await verify()).toMatchObject({
      valid: false,
      checked: seq - 1,
      brokenAt: seq,
      brokenId: chain[seq]!.id,
      reason: `record ${seq} is missing (found ${seq + 1})`,
      contentIntact: true,
    });
  });

  it('finds the last records missing, as the head names them', async () => {
    await restore();
    await t.storage.pool.query(sql.unsafe`delete from executions where seq > 1000`);
    expect(await verify()).toMatchObject({ valid: false, checked: 1000, brokenAt: 1001, reason: 'records after 1000 are missing', contentIntact: true });
  });

  it('names the first record found beyond missing last records, as a read of the records after them would', async () => {
    await restore();
    await t.storage.pool.query(sql.unsafe`update executions set seq = seq + 5000 where seq > 1100`);
    expect(await verify()).toMatchObject({
      valid: false,
      checked: 1100,
      brokenAt: 1101,
      brokenId: chain[1100]!.id,
      reason: 'record 1101 is missing (found 6101)',
    });
  });
});
