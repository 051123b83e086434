import type { CommonQueryMethods } from 'slonik';
import type { BillingEvent } from '../../../bus/index.ts';
import { clipText } from '../../../bus/index.ts';
import { claimBillingEvent, findTenantByExternalRef, setBillingEventOutcome, setTenantPlan, setTenantStatus } from '../../../storage/index.ts';
import type { TenancyActorOptions } from './options.ts';
import { findPlan } from '../../../core/tenancy/index.ts';

/** What an event did: a change to a tenant, or why it was acknowledged and left alone. */
interface Applied {
  outcome: string;
  tenantId?: string;
  changed: boolean;
}

const ignored = (why: string, tenantId?: string): Applied => ({ outcome: `ignored: ${why}`, changed: false, ...(tenantId ? { tenantId } : {}) });

/**
 * Apply one verified billing event, once (docs/BILLING-WEBHOOK.md). The event id is claimed in the
 * transaction that applies it: a replay, or a second delivery racing the first, finds the id taken
 * and changes nothing; a failure rolls the claim back, so the provider's retry is applied.
 */
export async function applyBillingEvent(o: Pick<TenancyActorOptions, 'storage' | 'audit' | 'logger'>, event: BillingEvent) {
  const result = await o.storage.pool.transaction(async (tx) => {
    if (!(await claimBillingEvent(tx, { id: event.id, type: event.type, outcome: 'pending' }))) return null;
    const applied = await apply(tx, event);
    await setBillingEventOutcome(tx, event.id, applied.outcome);
    return applied;
  });
  if (result === null) return { duplicate: true, outcome: 'already processed' };
  if (result.outcome === 'ignored: unknown plan')
    o.logger?.warn({ eventId: event.id, plan: event.data?.plan }, 'billing event names a plan this build does not define');
  if (result.changed && result.tenantId !== undefined) {
    await o.audit.recordEffect({
      subject: 'billing-webhook',
      action: 'tenant:manage',
      resource: `tenant:${result.tenantId}`,
      result: 'allow',
      reason: clipText(`${result.outcome} by billing event ${event.id} (${event.type})`, 1024),
      tenantId: result.tenantId,
    });
  }
  return { duplicate: false, outcome: result.outcome, ...(result.tenantId !== undefined ? { tenantId: result.tenantId } : {}) };
}

const HANDLED = new Set(['payment.failed', 'payment.succeeded', 'subscription.updated']);

async function apply(tx: CommonQueryMethods, event: BillingEvent): Promise<Applied> {
  if (!HANDLED.has(event.type)) return ignored('unhandled event type');
  const ref = event.data?.externalRef;
  if (ref === undefined) return ignored('no data.externalRef');
  const tenant = await findTenantByExternalRef(tx, ref);
  // Acknowledged rather than refused: a customer unknown here (never linked, or deleted) would
  // otherwise be retried by the provider for days.
  if (tenant === null) return ignored('no tenant with this externalRef');
  const id = tenant.id;
  switch (event.type) {
    case 'payment.failed':
      if (tenant.status === 'suspended') return ignored('already suspended', id);
      await setTenantStatus(tx, id, { status: 'suspended', reason: `payment failed (billing event ${event.id})`, by: 'billing' });
      return { outcome: 'suspended', tenantId: id, changed: true };
    case 'payment.succeeded':
      if (tenant.status === 'active') return ignored('already active', id);
      // A payment does not lift what an operator decided (abuse, a request of the customer's).
      if (tenant.suspendedBy !== 'billing') return ignored('suspended by an operator', id);
      await setTenantStatus(tx, id, { status: 'active', reason: `payment succeeded (billing event ${event.id})` });
      return { outcome: 'reactivated', tenantId: id, changed: true };
    default: {
      const plan = event.data?.plan;
      if (plan === undefined) return ignored('no data.plan', id);
      if (findPlan(plan) === undefined) return ignored('unknown plan', id);
      if (tenant.plan === plan) return ignored('already on this plan', id);
      await setTenantPlan(tx, id, plan);
      return { outcome: `plan changed to ${plan}`, tenantId: id, changed: true };
    }
  }
}
