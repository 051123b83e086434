import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import {
  claimBillingEvent,
  countSignupAttempt,
  findTenantByExternalRef,
  findTenantByKeyHash,
  getTenant,
  insertTenant,
  listTenants,
  meterUsage,
  pruneSignupAttempts,
  releaseUsage,
  setTenantKeyHash,
  setTenantPlan,
  setTenantStatus,
  usageOf,
} from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

let n = 0;
const id = () => `ten_${(++n).toString(16).padStart(24, '0')}`;
const hash = (c: string) => c.repeat(64).slice(0, 64);

describe.each(storageKinds())('tenant storage on $kind', ({ open }) => {
  let t: TestStorage;
  beforeAll(async () => {
    t = await open();
  }, machineTimeout(60_000));
  afterAll(() => t?.dispose());
  const db = () => t.storage.pool;

  it('stores a tenant with only the hash of its key, and finds it by that hash', async () => {
    const tenant = await insertTenant(db(), { id: id(), name: 'Acme', plan: 'free', externalRef: 'cus_acme', email: null, keyHash: hash('a') });
    expect(tenant).toMatchObject({ name: 'Acme', plan: 'free', status: 'active', statusReason: null, suspendedBy: null, externalRef: 'cus_acme' });
    expect(tenant!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await findTenantByKeyHash(db(), hash('a')))?.id).toBe(tenant!.id);
    expect(await findTenantByKeyHash(db(), hash('b'))).toBeNull();
    expect((await findTenantByExternalRef(db(), 'cus_acme'))?.id).toBe(tenant!.id);
  });

  it('refuses a second tenant with the same externalRef, and allows many without one', async () => {
    expect(await insertTenant(db(), { id: id(), name: 'Copy', plan: 'free', externalRef: 'cus_acme', email: null, keyHash: hash('c') })).toBeNull();
    expect(await insertTenant(db(), { id: id(), name: 'N1', plan: 'team', externalRef: null, email: 'x@example.com', keyHash: hash('d') })).not.toBeNull();
    expect(await insertTenant(db(), { id: id(), name: 'N2', plan: 'team', externalRef: null, email: null, keyHash: hash('e') })).not.toBeNull();
  });

  it('replaces the key hash on rotation: the old one finds nothing from then on', async () => {
    const tenant = await insertTenant(db(), { id: id(), name: 'Rotating', plan: 'free', externalRef: null, email: null, keyHash: hash('f') });
    await setTenantKeyHash(db(), tenant!.id, hash('1'));
    expect(await findTenantByKeyHash(db(), hash('f'))).toBeNull();
    expect((await findTenantByKeyHash(db(), hash('1')))?.id).toBe(tenant!.id);
    expect(await setTenantKeyHash(db(), 'ten_ffffffffffffffffffffffff', hash('2'))).toBeNull();
  });

  it('suspends with a reason and who did it, and reactivates clearing both', async () => {
    const tenant = await insertTenant(db(), { id: id(), name: 'S', plan: 'free', externalRef: null, email: null, keyHash: hash('3') });
    expect(await setTenantStatus(db(), tenant!.id, { status: 'suspended', reason: 'card declined', by: 'billing' })).toMatchObject({
      status: 'suspended',
      statusReason: 'card declined',
      suspendedBy: 'billing',
    });
    expect(await setTenantStatus(db(), tenant!.id, { status: 'active', reason: null })).toMatchObject({
      status: 'active',
      statusReason: null,
      suspendedBy: null,
    });
    expect(await setTenantPlan(db(), tenant!.id, 'business')).toMatchObject({ plan: 'business' });
    expect((await getTenant(db(), tenant!.id))?.plan).toBe('business');
  });

  it('pages tenants oldest first with the total', async () => {
    const all = await listTenants(db(), 500, 0);
    const page = await listTenants(db(), 2, 1);
    expect(page.total).toBe(all.total);
    expect(page.tenants.map((x) => x.id)).toEqual(all.tenants.slice(1, 3).map((x) => x.id));
  });

  it('meters up to the limit and not one unit beyond, in one period, apart from other periods and metrics', async () => {
    const tenant = await insertTenant(db(), { id: id(), name: 'M', plan: 'free', externalRef: null, email: null, keyHash: hash('4') });
    const u = { tenantId: tenant!.id, period: '2025-03', metric: 'agents', limit: 3 };
    expect(await meterUsage(db(), { ...u, amount: 2 })).toBe(2);
    expect(await meterUsage(db(), { ...u, amount: 2 })).toBeNull();
    expect(await meterUsage(db(), { ...u, amount: 1 })).toBe(3);
    expect(await meterUsage(db(), { ...u, amount: 1 })).toBeNull();
    expect(await meterUsage(db(), { ...u, amount: 5, period: '2025-04' })).toBeNull();
    expect(await meterUsage(db(), { ...u, amount: 1, period: '2025-04' })).toBe(1);
    expect(await meterUsage(db(), { ...u, amount: 1, metric: 'validations' })).toBe(1);
    expect(await meterUsage(db(), { ...u, amount: 1_000_000, limit: -1, metric: 'schedules' })).toBe(1_000_000);
    expect(await releaseUsage(db(), { ...u, amount: 1 })).toBe(2);
    expect(await releaseUsage(db(), { ...u, amount: 10 })).toBe(0);
    expect(await releaseUsage(db(), { ...u, amount: 1, period: '2030-01' })).toBe(0);
    const usage = await usageOf(db(), [tenant!.id], '2025-03');
    expect(usage.get(tenant!.id)).toEqual({ agents: 0, validations: 1, schedules: 1_000_000 });
  });

  it('accepts exactly the limit when many callers meter the same counter at once', async () => {
    const tenant = await insertTenant(db(), { id: id(), name: 'Race', plan: 'free', externalRef: null, email: null, keyHash: hash('5') });
    const limit = 25;
    const results = await Promise.all(
      Array.from({ length: 80 }, () => meterUsage(db(), { tenantId: tenant!.id, period: '2025-05', metric: 'validations', amount: 1, limit })),
    );
    const accepted = results.filter((r) => r !== null);
    expect(accepted).toHaveLength(limit);
    expect([...accepted].sort((a, b) => a! - b!)).toEqual(Array.from({ length: limit }, (_, i) => i + 1));
    expect((await usageOf(db(), [tenant!.id], '2025-05')).get(tenant!.id)).toEqual({ validations: limit });
  });

  it('claims a billing event id once, even when claimed concurrently', async () => {
    const claims = await Promise.all(Array.from({ length: 10 }, () => claimBillingEvent(db(), { id: 'evt_once', type: 'payment.failed', outcome: 'x' })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimBillingEvent(db(), { id: 'evt_once', type: 'payment.failed', outcome: 'x' })).toBe(false);
  });

  it('counts signups per address and hour up to the maximum, and forgets old windows', async () => {
    const counted = [];
    for (let i = 0; i < 7; i++) counted.push(await countSignupAttempt(db(), hash('9'), '2025-03-01T10:00:00.000Z', 5));
    expect(counted).toEqual([true, true, true, true, true, false, false]);
    expect(await countSignupAttempt(db(), hash('8'), '2025-03-01T10:00:00.000Z', 5)).toBe(true);
    expect(await countSignupAttempt(db(), hash('9'), '2025-03-01T11:00:00.000Z', 5)).toBe(true);
    expect(await pruneSignupAttempts(db(), '2025-03-01T11:00:00.000Z')).toBe(2);
  });
});
