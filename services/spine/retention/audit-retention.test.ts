import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { ensureChainHead, insertAuditEntries, insertTenant, listAuditEntries, prunedAuditBetween, type NewAuditEntry } from '../../../storage/index.ts';
import { GENESIS_HASH } from '../../../core/chain/index.ts';
import { newTenantId, newTenantKey, tenantKeyHash } from '../../../core/tenancy/index.ts';
import { auditChainSpec, verifyAuditChain } from '../../../actors/audit/index.ts';
import { RetentionPruner } from './pruner.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const DAY = 86_400_000;

describe.each(storageKinds())('retention of audit entries on $kind', ({ open }) => {
  let db: TestStorage;
  let free: string;
  let business: string;
  const chain: NewAuditEntry[] = [];
  let pruned: number[];

  beforeAll(async () => {
    db = await open();
    const pool = db.storage.pool;
    [free, business] = [newTenantId(), newTenantId()];
    await insertTenant(pool, { id: free, name: 'free', plan: 'free', externalRef: null, email: null, keyHash: tenantKeyHash(newTenantKey()) });
    await insertTenant(pool, { id: business, name: 'business', plan: 'business', externalRef: null, email: null, keyHash: tenantKeyHash(newTenantKey()) });
    // 40 entries, written straight to storage, 100 days old down to 61 days old: past the free plan's 7 days, within business's 365.
    let prev = GENESIS_HASH;
    for (let seq = 1; seq <= 40; seq++) {
      const tenantId = [free, business, null][seq % 3] ?? null;
      const e = auditChainSpec.seal(
        {
          id: randomUUID(),
          timestamp: new Date(Date.now() - (101 - seq) * DAY).toISOString(),
          subject: `agent-${seq}`,
          action: 'auth:token:create',
          resource: '/auth/token',
          result: 'allow',
          reason: 'scope granted',
          tenantId,
        },
        seq,
        prev,
      );
      chain.push(e);
      prev = e.hash;
    }
    await ensureChainHead(pool, 'audit', GENESIS_HASH);
    await insertAuditEntries(pool, chain);
    await pool.query(sql.unsafe`update chain_heads set seq = 40, hash = ${prev} where chain = 'audit'`);
    const round = await new RetentionPruner({ storage: db.storage, everyMs: 60_000, batch: 3 }).pruneOnce();
    pruned = round.audit;
  }, machineTimeout(60_000));
  afterAll(async () => {
    await db?.dispose();
  });

  it('prunes the entries of a tenant whose plan limit they passed and keeps the others', async () => {
    expect(pruned).toEqual(chain.filter((e) => e.tenantId === free).map((e) => e.seq));
    const { entries, total } = await listAuditEntries(db.storage.pool, { limit: 500, offset: 0 });
    expect(total).toBe(40 - pruned.length);
    expect(entries.some((e) => e.tenantId === free)).toBe(false);
    expect((await prunedAuditBetween(db.storage.pool, 1, 40)).map((p) => [p.seq, p.prevHash, p.hash])).toEqual(
      chain.filter((e) => e.tenantId === free).map((e) => [e.seq, e.prevHash, e.hash]),
    );
  });

  it('verifies the audit chain across the pruned entries, and not once a tombstone is edited', async () => {
    expect(await verifyAuditChain(db.storage)).toMatchObject({ valid: true, checked: 40, pruned: pruned.length, headHash: chain[39]!.hash });
    const seq = pruned[2]!;
    await db.storage.pool.query(sql.unsafe`update audit_pruned set hash = ${'f'.repeat(64)} where seq = ${seq}`);
    expect(await verifyAuditChain(db.storage)).toMatchObject({ valid: false, brokenAt: seq + 1, reason: 'prevHash does not link to the previous record' });
  });
});
