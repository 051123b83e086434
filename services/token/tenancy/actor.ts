import { clipText, type RequestOf, type Subscription } from '../../../bus/index.ts';
import { SuiteError } from '../../../bus/index.ts';
import { subjects, type Tenant, type UsageReport } from '../../../bus/index.ts';
import {
  getTenant,
  findTenantByKeyHash,
  insertTenant,
  listTenants,
  meterUsage,
  releaseUsage,
  setTenantKeyHash,
  setTenantPlan,
  setTenantStatus,
  usageOf,
  type StoredTenant,
} from '../../../storage/index.ts';
import { replyOf } from '../../../actors/base/index.ts';
import { applyBillingEvent } from './billing.ts';
import { newTenantId, newTenantKey, tenantKeyHash } from '../../../core/tenancy/index.ts';
import { periodEnd, periodOf } from '../../../core/tenancy/index.ts';
import { findPlan, type Plan } from '../../../core/tenancy/index.ts';
import { signup } from './signup.ts';
import { remainingOf, usageReport } from './usage-report.ts';
import { BusActor } from '../../../actors/base/index.ts';
import type { TenancyActorOptions } from './options.ts';

export type { TenancyActorOptions } from './options.ts';

/** The tenant as the API shows it (how it was suspended stays internal). */
export function publicTenant(t: StoredTenant): Tenant {
  const { suspendedBy: _, ...shown } = t;
  return { ...shown, plan: planOf(t).id };
}

export function planOf(t: StoredTenant): Plan {
  const plan = findPlan(t.plan);
  // Plans live in code; a stored plan this build does not know is a deployment mistake, not the caller's.
  if (plan === undefined) throw new Error(`tenant ${t.id} is on plan "${t.plan}", which this build does not define`);
  return plan;
}

function found(t: StoredTenant | null): StoredTenant {
  if (t === null) throw new SuiteError('NOT_FOUND', 'no tenant with this id');
  return t;
}

/**
 * Tenants, their keys, metering and usage reports, billing events and public signup (queue group
 * `tenancy`, any number of replicas: every decision is made by one SQL statement or transaction,
 * never from memory, so replicas agree and a rotated key is refused everywhere at once).
 */
export class TenancyActor extends BusActor {
  readonly #o: TenancyActorOptions;
  readonly #clock: () => number;

  constructor(o: TenancyActorOptions) {
    super();
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    const queue = { queue: 'tenancy' };
    const db = () => this.#o.storage.pool;
    const answer = <T>(work: () => Promise<T>) => replyOf(work, (err) => this.#o.logger?.error({ err }, 'tenancy request failed'));
    return [
      bus.serve(subjects.tenancyCreate, ({ data }) => answer(() => this.#create(data)), queue),
      bus.serve(subjects.tenancyList, ({ data }) => answer(() => this.#list(data)), queue),
      bus.serve(subjects.tenancyGet, ({ data }) => answer(async () => this.#report(found(await getTenant(db(), data.id)), data.period)), queue),
      bus.serve(subjects.tenancyUsage, ({ data }) => answer(async () => this.#report(found(await getTenant(db(), data.tenantId)), data.period)), queue),
      bus.serve(subjects.tenancySetPlan, ({ data }) => answer(() => this.#setPlan(data)), queue),
      bus.serve(subjects.tenancyRotateKey, ({ data }) => answer(() => this.#rotateKey(data)), queue),
      bus.serve(subjects.tenancySetStatus, ({ data }) => answer(() => this.#setStatus(data)), queue),
      bus.serve(subjects.tenancyResolve, ({ data }) => answer(() => this.#resolve(data)), queue),
      bus.serve(subjects.tenancyMeter, ({ data }) => answer(() => this.#meter(data)), queue),
      bus.serve(subjects.tenancyBillingEvent, ({ data }) => answer(() => applyBillingEvent(this.#o, data.event)), queue),
      bus.serve(subjects.tenancySignup, ({ data }) => answer(() => signup(this.#o, data, this.#clock(), (r) => this.#create(r))), queue),
    ];
  }

  async #create(req: RequestOf<typeof subjects.tenancyCreate>) {
    const plan = req.plan ?? 'free';
    const apiKey = newTenantKey();
    const stored = await insertTenant(this.#o.storage.pool, {
      id: newTenantId(),
      name: req.name,
      plan,
      externalRef: req.externalRef ?? null,
      email: req.email ?? null,
      keyHash: tenantKeyHash(apiKey),
    });
    if (stored === null) throw new SuiteError('CONFLICT', 'externalRef already names another tenant');
    await this.#audited(req.by, stored.id, `created on plan ${plan}`);
    return { ...publicTenant(stored), apiKey };
  }

  async #list(req: RequestOf<typeof subjects.tenancyList>) {
    const db = this.#o.storage.pool;
    const { tenants, total } = await listTenants(db, req.limit, req.offset);
    const usage = await usageOf(
      db,
      tenants.map((t) => t.id),
      req.period,
    );
    return { tenants: tenants.map((t) => usageReport(publicTenant(t), req.period, planOf(t), usage.get(t.id) ?? {})), total };
  }

  async #report(t: StoredTenant, period: string): Promise<UsageReport> {
    const usage = await usageOf(this.#o.storage.pool, [t.id], period);
    return usageReport(publicTenant(t), period, planOf(t), usage.get(t.id) ?? {});
  }

  async #setPlan(req: RequestOf<typeof subjects.tenancySetPlan>) {
    const stored = found(await setTenantPlan(this.#o.storage.pool, req.id, req.plan));
    await this.#audited(req.by, stored.id, `plan set to ${req.plan}`);
    return publicTenant(stored);
  }

  async #rotateKey(req: RequestOf<typeof subjects.tenancyRotateKey>) {
    const apiKey = newTenantKey();
    // Committed before the answer leaves: the old key resolves to nothing from here on, everywhere.
    const stored = found(await setTenantKeyHash(this.#o.storage.pool, req.id, tenantKeyHash(apiKey)));
    await this.#audited(req.by, stored.id, 'API key rotated; the previous key is refused');
    return { ...publicTenant(stored), apiKey };
  }

  async #setStatus(req: RequestOf<typeof subjects.tenancySetStatus>) {
    if (req.status === 'suspended' && req.reason === undefined) throw new SuiteError('INVALID_REQUEST', 'body/reason is required when status is suspended');
    const change =
      req.status === 'suspended'
        ? { status: 'suspended' as const, reason: req.reason as string, by: 'operator' as const }
        : { status: 'active' as const, reason: req.reason ?? null };
    const stored = found(await setTenantStatus(this.#o.storage.pool, req.id, change));
    await this.#audited(req.by, stored.id, req.reason === undefined ? req.status : `${req.status}: ${req.reason}`);
    return publicTenant(stored);
  }

  async #resolve(req: RequestOf<typeof subjects.tenancyResolve>) {
    const t = await findTenantByKeyHash(this.#o.storage.pool, req.keyHash);
    if (t === null) throw new SuiteError('TENANT_KEY_INVALID', 'tenant key not recognised');
    if (t.status === 'suspended') throw new SuiteError('TENANT_SUSPENDED', 'the tenant is suspended');
    return { tenantId: t.id };
  }

  async #meter(req: RequestOf<typeof subjects.tenancyMeter>) {
    const db = this.#o.storage.pool;
    const period = req.period ?? periodOf(this.#clock());
    const t = found(await getTenant(db, req.tenantId));
    const limit = planOf(t).limits[req.metric];
    const counter = { tenantId: t.id, period, metric: req.metric };
    let accepted = true;
    let used: number | null;
    if (req.amount < 0) {
      used = await releaseUsage(db, { ...counter, amount: -req.amount });
    } else {
      if (t.status === 'suspended') throw new SuiteError('TENANT_SUSPENDED', 'the tenant is suspended');
      used = await meterUsage(db, { ...counter, amount: req.amount, limit });
      if (used === null) {
        accepted = false;
        used = (await usageOf(db, [t.id], period)).get(t.id)?.[req.metric] ?? 0;
      }
    }
    return {
      accepted,
      metric: req.metric,
      period,
      limit,
      used,
      remaining: remainingOf(limit, used),
      resetAt: periodEnd(period).toISOString(),
    };
  }

  /** The change is committed (a rotated key must reach its caller): never answered as failed for a late entry. */
  async #audited(by: string, tenantId: string, what: string): Promise<void> {
    await this.#o.audit.recordEffect({
      subject: by,
      action: 'tenant:manage',
      resource: `tenant:${tenantId}`,
      result: 'allow',
      reason: clipText(what, 1024),
      tenantId,
    });
  }
}
