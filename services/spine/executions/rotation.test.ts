import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { createTraceSigner } from '../../../core/chain/index.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * What the execution chain writes: emptied after each test, so that each starts a new chain on the
 * storage of its kind (one storage per kind: a new one took about 2.5 s on PGlite).
 */
const CHAIN_TABLES = sql.unsafe`truncate executions, trace_keys, chain_heads, chain_leases,
  execution_log_tiles, execution_log_state, execution_log_checkpoints, execution_log_pruned`;

describe.each(storageKinds())('trace key rotation and ephemeral keys on $kind', ({ open }) => {
  let db: TestStorage | undefined;
  let h: ExecutionHarness | undefined;
  beforeAll(async () => {
    db = await open();
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await db?.storage.pool.query(CHAIN_TABLES);
  });
  afterAll(async () => {
    await db?.dispose();
  });

  const start = async (key: string | undefined) => {
    h = await startExecutionHarness({ storage: db!.storage, tracePrivateKeyPem: key });
    return h;
  };
  const json = async (h: ExecutionHarness, method: 'GET' | 'POST', url: string, payload?: object) => {
    const token = await h.token(['execution:read']);
    const res = await h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return res.json();
  };
  const recordMany = async (h: ExecutionHarness, n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push((await h.record(executionBody({ action: `step-${i}` }))).body);
    return out;
  };

  it('keeps records signed with an earlier configured key verifying after the writer restarts with a new key', async () => {
    const [keyA, keyB] = [pem(), pem()];
    const h = await start(keyA);
    const before = await recordMany(h, 3);
    await h.restartWriter(keyB);
    const after = await recordMany(h, 2);
    expect(before[0]!.keyId).toBe(createTraceSigner(keyA).keyId);
    expect(after[0]!.keyId).toBe(createTraceSigner(keyB).keyId);
    expect(await json(h, 'GET', '/executions-verify-chain')).toEqual({ mode: 'chain', valid: true, checked: 5, headHash: after[1]!.hash });

    const current = await json(h, 'GET', '/executions/public-key');
    const earlier = await json(h, 'GET', `/executions/public-key?keyId=${before[0]!.keyId}`);
    expect(current).toMatchObject({ keyId: after[0]!.keyId, ephemeral: false, algorithm: 'Ed25519' });
    expect(earlier).toEqual({ keyId: before[0]!.keyId, algorithm: 'Ed25519', publicKey: createTraceSigner(keyA).publicKeyPem, ephemeral: false });
    expect(await json(h, 'POST', '/executions/verify', { record: before[0] })).toMatchObject({ valid: true });
    // Against the new key only, an old record is "valid: false, contentIntact: true" (spec: rotation).
    expect(await json(h, 'POST', '/executions/verify', { publicKey: current.publicKey })).toMatchObject({
      valid: false,
      brokenAt: 1,
      contentIntact: true,
      reason: 'signature does not verify against the public key',
    });
  });

  it('fails the records of an ephemeral key after a restart, as the spec says, and reports why', async () => {
    const h = await start(undefined);
    const before = await recordMany(h, 3);
    expect(await json(h, 'GET', '/executions-verify-chain')).toMatchObject({ valid: true, checked: 3 });
    expect(h.logText()).toMatch(/EPHEMERAL key/);

    await h.restartWriter(undefined);
    const after = await recordMany(h, 1);
    const chain = await json(h, 'GET', '/executions-verify-chain');
    expect(chain).toMatchObject({ valid: false, checked: 0, brokenAt: 1, brokenId: before[0]!.id, contentIntact: true, headHash: after[0]!.hash });
    expect(chain.reason).toMatch(/ephemeral key .* no longer running/);
    expect(await json(h, 'GET', '/executions/public-key')).toMatchObject({ keyId: after[0]!.keyId, ephemeral: true });
    expect(await json(h, 'GET', `/executions/public-key?keyId=${before[0]!.keyId}`)).toMatchObject({ ephemeral: true });
    expect(await json(h, 'POST', '/executions/verify', { id: before[1]!.id })).toMatchObject({ valid: false, contentIntact: true, inChain: true });
    expect(await json(h, 'POST', '/executions/verify', { id: after[0]!.id })).toMatchObject({ valid: true });
  });

  it('fails the records of an ephemeral key once its writer stops, even before another leads', async () => {
    const h = await start(undefined);
    await recordMany(h, 2);
    await h.actors.writer!.stop();
    expect(await json(h, 'POST', '/executions/verify', {})).toMatchObject({ valid: false, brokenAt: 1, contentIntact: true });
  });
});
