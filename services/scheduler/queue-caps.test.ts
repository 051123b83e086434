import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { openStorage, type Storage } from '../../storage/index.ts';
import { storageKinds, type StoragePlace } from '../../testing/storage.ts';
import type { NewTask } from './task-store.ts';
import { insertTask } from './enqueue-store.ts';
import { EnqueueBatcher } from './enqueue-batch.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 6: tenant A filled the shared queue (10,007 tasks delayed 31 days) and tenant B's
 * `POST /queue` got 429; the cap was overrun by 7. The cap now counts per tenant as well as in
 * total, and the count-and-insert holds an advisory lock, so no race overruns either cap.
 */
const MIGRATIONS = [{ name: 'scheduler', dir: new URL('./migrations/', import.meta.url) }];
const owner = { jti: null, sub: 'caps-test', scope: [], proven: false, tenantId: null };
const task = (namespace: string, id: string): NewTask => ({
  namespace,
  id,
  priority: 'normal',
  task: { type: 'http', url: 'http://example.test/' },
  retry: { maxAttempts: 1, backoff: 'fixed', baseDelay: 10 },
  timeoutMs: 100,
  owner,
  delayMs: 3_600_000,
});
const count = (s: Storage, namespace?: string) =>
  s.pool.oneFirst(
    namespace === undefined
      ? sql.unsafe`select count(*)::int from scheduler_tasks`
      : sql.unsafe`select count(*)::int from scheduler_tasks where namespace = ${namespace}`,
  );

describe.each(storageKinds())('the queue caps on $kind', ({ kind, place: makePlace }) => {
  let place: StoragePlace;
  // Postgres: several pools stand for several scheduler replicas enqueueing at once.
  let pools: Storage[];
  beforeAll(async () => {
    place = await makePlace();
    const first = await openStorage({ ...place.options, migrationSets: MIGRATIONS });
    pools = [first];
    if (kind === 'postgres') for (let i = 0; i < 3; i++) pools.push(await openStorage({ ...place.options, migrationSets: MIGRATIONS }));
  }, machineTimeout(60_000));
  afterAll(async () => {
    for (const s of pools ?? []) await s.close();
    await place?.remove();
  });

  it('refuses a tenant at its own cap while another tenant still enqueues', async () => {
    const [s] = pools as [Storage];
    await s.pool.query(sql.unsafe`delete from scheduler_tasks`);
    const caps = { total: 10, perTenant: 3 };
    for (let i = 0; i < 3; i++) expect((await insertTask(s.pool, task('ten_a', `a${i}`), caps)).outcome).toBe('inserted');
    expect((await insertTask(s.pool, task('ten_a', 'a3'), caps)).outcome).toBe('tenant-full');
    expect((await insertTask(s.pool, task('ten_b', 'b0'), caps)).outcome).toBe('inserted');
    expect((await insertTask(s.pool, task('', 'own0'), caps)).outcome).toBe('inserted');
    expect(await count(s, 'ten_a')).toBe(3);
  });

  it('never holds more than the total cap, nor more than a tenant cap, however many enqueue at once', async () => {
    const [s] = pools as [Storage];
    await s.pool.query(sql.unsafe`delete from scheduler_tasks`);
    const caps = { total: 25, perTenant: 10 };
    const tenants = ['ten_a', 'ten_b', 'ten_c', 'ten_d'];
    const attempts = Array.from({ length: 200 }, (_, i) => {
      const pool = (pools[i % pools.length] as Storage).pool;
      return insertTask(pool, task(tenants[i % tenants.length] as string, `t${i}`), caps);
    });
    const outcomes = await Promise.all(attempts);
    const inserted = outcomes.filter((o) => o.outcome === 'inserted').length;
    expect(inserted).toBe(25);
    expect(await count(s)).toBe(25);
    for (const t of tenants) expect(await count(s, t)).toBeLessThanOrEqual(10);
    expect(outcomes.every((o) => o.outcome === 'inserted' || o.outcome === 'full' || o.outcome === 'tenant-full')).toBe(true);
  });

  it('batches enqueues that arrive together into shared transactions, one batcher per replica, holding both caps', async () => {
    const [s] = pools as [Storage];
    await s.pool.query(sql.unsafe`delete from scheduler_tasks`);
    const caps = { total: 30, perTenant: 12 };
    const batchers = pools.map((p) => new EnqueueBatcher(p.pool, () => caps));
    const tenants = ['ten_a', 'ten_b', 'ten_c'];
    const outcomes = await Promise.all(
      Array.from({ length: 150 }, (_, i) => (batchers[i % batchers.length] as EnqueueBatcher).enqueue(task(tenants[i % tenants.length] as string, `b${i}`))),
    );
    expect(outcomes.filter((o) => o.outcome === 'inserted')).toHaveLength(30);
    expect(await count(s)).toBe(30);
    for (const t of tenants) expect(await count(s, t)).toBeLessThanOrEqual(12);
    // A duplicate id in the same batch is refused as such, not inserted twice.
    await s.pool.query(sql.unsafe`delete from scheduler_tasks`);
    const [first, second] = await Promise.all([batchers[0]!.enqueue(task('ten_a', 'same')), batchers[0]!.enqueue(task('ten_a', 'same'))]);
    expect([first?.outcome, second?.outcome]).toEqual(['inserted', 'duplicate']);
  });
});
