import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from './open.ts';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import type { Storage } from './types.ts';
import {
  consumeNonce,
  findIdentity,
  insertIdentity,
  insertIssuedToken,
  insertNonce,
  insertRevocations,
  liveTokensOf,
  pruneNonces,
  revocationSnapshot,
  suspendIdentity,
} from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

const pem = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
const nonce = () => randomBytes(32).toString('base64url');
let n = 0;
const subject = () => `agent-${++n}-${randomBytes(3).toString('hex')}`;

async function enrol(storage: Storage, sub = subject()): Promise<string> {
  await insertIdentity(storage.pool, { subject: sub, kind: 'agent', publicKeyPem: pem(), enrolledBy: 'admin' });
  return sub;
}

/** Store a nonce and hand out `count` concurrent consumptions of it, over the storages given. */
async function raceFor(storages: Storage[], count: number): Promise<boolean[]> {
  const sub = await enrol(storages[0]!);
  const value = nonce();
  expect(await insertNonce(storages[0]!.pool, { nonce: value, subject: sub, ttlMs: 60_000 })).not.toBeNull();
  return Promise.all(
    Array.from({ length: count }, (_, i) => storages[i % storages.length]!.pool.transaction((tx) => consumeNonce(tx, { nonce: value, subject: sub }))),
  );
}

describe.each(storageKinds())('identity storage on $kind', (kind) => {
  let t: TestStorage;
  beforeAll(async () => {
    t = await kind.open();
  }, machineTimeout(60_000));
  afterAll(() => t?.dispose());

  it('enrols a subject once: a second enrolment of it returns nothing and changes nothing', async () => {
    const sub = subject();
    const key = pem();
    const first = await insertIdentity(t.storage.pool, { subject: sub, kind: 'agent', publicKeyPem: key, enrolledBy: 'admin' });
    expect(first).toMatchObject({ subject: sub, kind: 'agent', publicKeyPem: key, status: 'active', reason: null, suspendedAt: null });
    expect(first!.enrolledAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await insertIdentity(t.storage.pool, { subject: sub, kind: 'service', publicKeyPem: pem(), enrolledBy: 'admin' })).toBeNull();
    expect(await findIdentity(t.storage.pool, sub)).toEqual(first);
  });

  it('consumes a nonce exactly once, and only for the subject it was issued to', async () => {
    const a = await enrol(t.storage);
    const b = await enrol(t.storage);
    const value = nonce();
    const stored = await insertNonce(t.storage.pool, { nonce: value, subject: a, ttlMs: 120_000 });
    expect(Date.parse(stored!.expiresAt) - Date.now()).toBeGreaterThan(100_000);
    expect(await consumeNonce(t.storage.pool, { nonce: value, subject: b })).toBe(false);
    expect(await consumeNonce(t.storage.pool, { nonce: value, subject: a })).toBe(true);
    expect(await consumeNonce(t.storage.pool, { nonce: value, subject: a })).toBe(false);
    expect(await consumeNonce(t.storage.pool, { nonce: nonce(), subject: a })).toBe(false);
  });

  it('refuses an expired nonce, and prunes it', async () => {
    const sub = await enrol(t.storage);
    const value = nonce();
    await insertNonce(t.storage.pool, { nonce: value, subject: sub, ttlMs: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await consumeNonce(t.storage.pool, { nonce: value, subject: sub })).toBe(false);
    expect(await pruneNonces(t.storage.pool)).toBeGreaterThanOrEqual(1);
    expect(await t.storage.pool.exists(sql.unsafe`select 1 from identity_nonces where nonce = ${value}`)).toBe(false);
  });

  it('gives a consumed nonce back when the consuming transaction rolls back', async () => {
    const sub = await enrol(t.storage);
    const value = nonce();
    await insertNonce(t.storage.pool, { nonce: value, subject: sub, ttlMs: 60_000 });
    await expect(
      t.storage.pool.transaction(async (tx) => {
        expect(await consumeNonce(tx, { nonce: value, subject: sub })).toBe(true);
        throw new Error('issuance failed after the proof');
      }),
    ).rejects.toThrow('issuance failed');
    expect(await consumeNonce(t.storage.pool, { nonce: value, subject: sub })).toBe(true);
  });

  it('lets exactly one of 20 concurrent transactions consume the same nonce', async () => {
    const results = await raceFor([t.storage], 20);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('stores no nonce for an unknown or a suspended subject', async () => {
    expect(await insertNonce(t.storage.pool, { nonce: nonce(), subject: 'never-enrolled', ttlMs: 60_000 })).toBeNull();
    const sub = await enrol(t.storage);
    await suspendIdentity(t.storage.pool, { subject: sub, reason: 'key leaked', by: 'admin' });
    expect(await insertNonce(t.storage.pool, { nonce: nonce(), subject: sub, ttlMs: 60_000 })).toBeNull();
  });

  it("suspends an active identity once, keeping the first reason, and lists the subject's live tokens", async () => {
    const sub = await enrol(t.storage);
    const now = Math.floor(Date.now() / 1000);
    for (const [jti, exp] of [
      ['live-1', now + 600],
      ['live-2', now + 60],
      ['dead', now - 1],
    ] as const) {
      await insertIssuedToken(t.storage.pool, { jti: `${sub}-${jti}`, sub, scope: ['a:b'], tenantId: null, kid: 'k', iat: now - 10, exp, proven: false });
    }
    const suspended = await suspendIdentity(t.storage.pool, { subject: sub, reason: 'key leaked', by: 'admin' });
    expect(suspended).toMatchObject({ status: 'suspended', reason: 'key leaked' });
    expect(await suspendIdentity(t.storage.pool, { subject: sub, reason: 'other', by: 'admin' })).toBeNull();
    expect((await findIdentity(t.storage.pool, sub))?.reason).toBe('key leaked');
    expect((await liveTokensOf(t.storage.pool, sub, now)).map((x) => x.jti)).toEqual([`${sub}-live-1`, `${sub}-live-2`]);
  });

  it('records many revocations with consecutive versions, skipping those already revoked', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const before = await revocationSnapshot(t.storage.pool, 0);
    const first = await insertRevocations(
      t.storage.pool,
      [
        { jti: 'bulk-a', exp },
        { jti: 'bulk-b', exp },
        { jti: 'bulk-a', exp },
      ],
      'admin',
    );
    expect(first.created.map((c) => [c.jti, c.version])).toEqual([
      ['bulk-a', before.version + 1],
      ['bulk-b', before.version + 2],
    ]);
    const second = await insertRevocations(
      t.storage.pool,
      [
        { jti: 'bulk-b', exp },
        { jti: 'bulk-c', exp },
      ],
      'admin',
    );
    expect(second.created.map((c) => [c.jti, c.version])).toEqual([['bulk-c', before.version + 3]]);
    expect(second.version).toBe(before.version + 3);
    expect((await revocationSnapshot(t.storage.pool, 0)).entries.map((e) => e.jti)).toEqual(expect.arrayContaining(['bulk-a', 'bulk-b', 'bulk-c']));
  });

  if (kind.kind === 'postgres') {
    it('lets exactly one of 20 consumptions succeed across two separate pools (as two processes would)', async () => {
      const place = await kind.place();
      const one = await openStorage(place.options);
      const two = await openStorage(place.options);
      try {
        const results = await raceFor([one, two], 20);
        expect(results.filter(Boolean)).toHaveLength(1);
      } finally {
        await one.close();
        await two.close();
        await place.remove();
      }
    });
  }
});
