import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { createTraceSigner } from '../../../core/chain/index.ts';
import { ExecutionWriterActor } from './writer-actor.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe.each(storageKinds())('execution writer failover on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  let standby: ExecutionWriterActor;
  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({ storage: db.storage, tracePrivateKeyPem: pem(), leaseMs: 1500 });
    standby = new ExecutionWriterActor({ bus: h.bus, storage: db.storage, signer: createTraceSigner(pem()), holder: 'standby', leaseMs: 1500 });
    await standby.start();
  }, machineTimeout(60_000));
  afterAll(async () => {
    await standby?.stop();
    await h?.stop();
    await db?.dispose();
  });

  // 1.5 s leases: long enough that a leader on a busy machine (CI, 2 cores) renews in time.
  it('serves appends only from the leader; a standby takes over, publishes its key first, and the chain continues', async () => {
    expect([h.actors.writer!.isLeader, standby.isLeader]).toEqual([true, false]);
    const before = await Promise.all(Array.from({ length: 20 }, () => h.record(executionBody())));
    expect(new Set(before.map((r) => r.body.keyId))).toEqual(new Set([h.actors.writer!.keyId]));

    await h.actors.writer!.stop();
    const deadline = Date.now() + machineTimeout(10_000);
    while (!standby.isLeader && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(standby.isLeader).toBe(true);

    let after = await h.record(executionBody());
    for (let i = 0; after.status === 503 && i < 100; i++) after = await h.record(executionBody());
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    expect(after.body).toMatchObject({ keyId: standby.keyId, seq: 21, prevHash: before.map((r) => r.body).find((r) => r.seq === 20)!.hash });
    const current = (await h.app.inject({ method: 'GET', url: '/executions/public-key' })).json();
    expect(current.keyId).toBe(standby.keyId);
    const verified = (await h.app.inject({ method: 'POST', url: '/executions/verify', payload: {} })).json();
    expect(verified).toEqual({ mode: 'chain', valid: true, checked: 21, headHash: after.body.hash });
  });
});
