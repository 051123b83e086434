import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { createBus, createMemoryNetwork, type Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { openStorage, type Storage } from '../../../storage/index.ts';
import { RevocationActor } from './actor.ts';
import { RevocationView } from './view.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const future = () => Math.floor(Date.now() / 1000) + 3600;

describe('revocation actor and edge view', () => {
  let storage: Storage;
  let network: ReturnType<typeof createMemoryNetwork>;
  let actorBus: Bus;
  let edgeBus: Bus;
  let actor: RevocationActor;
  const views: RevocationView[] = [];

  // One embedded database for the file (opening PGlite takes seconds); emptied before each test.
  beforeAll(async () => {
    storage = await openStorage({});
  }, machineTimeout(30_000));
  afterAll(() => storage.close());

  beforeEach(async () => {
    await storage.pool.query(sql.unsafe`delete from revocations`);
    await storage.pool.query(sql.unsafe`update revocation_state set version = 0`);
    network = createMemoryNetwork();
    actorBus = createBus(network.connect());
    edgeBus = createBus(network.connect());
    actor = new RevocationActor({ bus: actorBus, storage, heartbeatMs: 100 });
    actor.start();
  }, machineTimeout(30_000));

  afterEach(async () => {
    await Promise.all(views.splice(0).map((v) => v.stop()));
    await actor.stop();
    await edgeBus.drain();
    await actorBus.drain();
  });

  const view = async (stalenessMs = 400) => {
    const v = new RevocationView({ bus: edgeBus, stalenessMs });
    views.push(v);
    await v.start();
    return v;
  };

  it('is trusted once synced and sees a revocation broadcast by the actor', async () => {
    const v = await view();
    expect(v.trusted()).toBe(true);
    const r = await edgeBus.request(subjects.revocationRevoke, { jti: 'j1', exp: future(), by: 'test' });
    expect(r).toMatchObject({ ok: true, value: { revoked: true, jti: 'j1', version: 1 } });
    await eventually(() => v.isRevoked('j1'));
    expect(v.version).toBe(1);
  });

  it('loads revocations made before it started from the durable store', async () => {
    await edgeBus.request(subjects.revocationRevoke, { jti: 'early', exp: future(), by: 'test' });
    const v = await view();
    expect(v.isRevoked('early')).toBe(true);
    expect(v.version).toBe(1);
  });

  it('does not revoke twice, and ignores unknown or expired tokens', async () => {
    const first = await edgeBus.request(subjects.revocationRevoke, { jti: 'twice', exp: future(), by: 'a' });
    const second = await edgeBus.request(subjects.revocationRevoke, { jti: 'twice', exp: future(), by: 'b' });
    expect(first).toMatchObject({ ok: true, value: { version: 1 } });
    expect(second).toMatchObject({ ok: true, value: { revoked: true, version: 1 } });
    expect(await edgeBus.request(subjects.revocationRevoke, { jti: 'unknown', by: 'a' })).toMatchObject({ ok: true, value: { revoked: false } });
    expect(await edgeBus.request(subjects.revocationRevoke, { jti: 'old', exp: 1000, by: 'a' })).toMatchObject({ ok: true, value: { revoked: false } });
  });

  it('fails closed when heartbeats stop, and recovers when they resume', async () => {
    const v = await view(300);
    await actor.stop();
    await eventually(() => !v.trusted(), 2000);
    actor = new RevocationActor({ bus: actorBus, storage, heartbeatMs: 100 });
    actor.start();
    await eventually(() => v.trusted(), 2000);
  });

  it('notices a missed broadcast from the heartbeat version and catches up from the store', async () => {
    const v = await view(2000);
    // A revocation whose broadcast this edge never received (written straight to the store).
    const { insertRevocation } = await import('../../../storage/index.ts');
    await insertRevocation(storage.pool, { jti: 'missed', exp: future(), by: 'elsewhere' });
    await eventually(() => v.isRevoked('missed') && v.version === 1, 2000);
    expect(v.trusted()).toBe(true);
  });

  it('is not trusted before its first snapshot when no revocation actor answers', async () => {
    await actor.stop();
    const v = new RevocationView({ bus: edgeBus, stalenessMs: 1000 });
    views.push(v);
    await v.start();
    expect(v.trusted()).toBe(false);
  });

  it('prunes revocations once their tokens have expired, and a new view no longer loads them', async () => {
    const { insertRevocation, pruneRevocations } = await import('../../../storage/index.ts');
    const now = Math.floor(Date.now() / 1000);
    await insertRevocation(storage.pool, { jti: 'short-lived', exp: now + 5, by: 'test' });
    await insertRevocation(storage.pool, { jti: 'long-lived', exp: now + 3600, by: 'test' });
    expect(await pruneRevocations(storage.pool, now + 10)).toBe(1);
    const v = await view();
    expect(v.isRevoked('short-lived')).toBe(false);
    expect(v.isRevoked('long-lived')).toBe(true);
  });
});
