import { sql } from 'slonik';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../../bus/index.ts';
import { listAuditEntries } from '../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../testing/storage.ts';
import { ChainWriter } from '../chain-writer/index.ts';
import { auditChainSpec } from './chain-spec.ts';

const entry = (i: number): AuditInput => ({
  id: `aud_list${String(i).padStart(8, '0')}`,
  timestamp: new Date(1_800_000_000_000 + i * 1000).toISOString(),
  subject: `agent-${i % 3}`,
  action: 'test:list',
  resource: `r-${i}`,
  result: i % 4 ? 'allow' : 'deny',
  reason: 'test',
  tenantId: i % 2 ? 'ten-a' : null,
});

const page = { limit: 5, offset: 0 };

describe.each(storageKinds())('audit pages and their totals on $kind', (kind) => {
  let db: TestStorage | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  const withChain = async (n: number, before?: (storage: TestStorage['storage']) => Promise<void>) => {
    db = await kind.open();
    await before?.(db.storage);
    const writer = new ChainWriter({ storage: db.storage, spec: auditChainSpec, holder: 'w1' });
    await writer.start();
    await Promise.all(Array.from({ length: n }, (_, i) => writer.append([entry(i)])));
    await writer.stop();
    return db.storage;
  };

  it('gives the total of an unfiltered page as the number of entries, before and after the first', async () => {
    const storage = await withChain(40, async (empty) => {
      expect(await listAuditEntries(empty.pool, page)).toEqual({ entries: [], total: 0 });
    });
    const all = await listAuditEntries(storage.pool, page);
    expect(all.total).toBe(40);
    expect(all.entries.map((e) => e.seq)).toEqual([40, 39, 38, 37, 36]);
  });

  it('counts the entries matching each filter', async () => {
    const storage = await withChain(40);
    const inputs = Array.from({ length: 40 }, (_, i) => entry(i));
    const count = (keep: (e: AuditInput) => boolean) => inputs.filter(keep).length;
    expect((await listAuditEntries(storage.pool, { ...page, subject: 'agent-1' })).total).toBe(count((e) => e.subject === 'agent-1'));
    expect((await listAuditEntries(storage.pool, { ...page, result: 'deny' })).total).toBe(count((e) => e.result === 'deny'));
    expect((await listAuditEntries(storage.pool, { ...page, tenantId: 'ten-a' })).total).toBe(count((e) => e.tenantId === 'ten-a'));
    const to = entry(9).timestamp;
    expect((await listAuditEntries(storage.pool, { ...page, to })).total).toBe(10);
  });

  it("takes the unfiltered total from the chain's head, not by counting rows: a deleted row does not shorten it", async () => {
    const storage = await withChain(12);
    // Tampering (verification reports it); a filtered page still counts the rows that are left.
    await storage.pool.query(sql.unsafe`delete from audit_entries where id = ${entry(2).id}`);
    expect((await listAuditEntries(storage.pool, page)).total).toBe(12);
    // agent-2: entries 2, 5, 8 and 11, one of them deleted.
    expect((await listAuditEntries(storage.pool, { ...page, subject: entry(2).subject })).total).toBe(3);
  });
});
