import type { Metric, Tenant, UsageReport } from '../../../bus/index.ts';
import type { Plan } from '../../../core/tenancy/index.ts';

/** The metered limits, in the order reports list them. */
export const METRICS: readonly Metric[] = Object.freeze(['agents', 'validations', 'schedules', 'benchmarkRuns']);

/** Units left under `limit` after `used`; `-1` for an unlimited (`-1`) limit. */
export function remainingOf(limit: number, used: number): number {
  return limit < 0 ? -1 : Math.max(limit - used, 0);
}

/**
 * The spec's upgrade prompt ("Limits"): a limited metric at 80% of its limit or more, or with at
 * most one unit left. Integer arithmetic (5·used ≥ 4·limit), so 80% of any limit is exact.
 */
export function isApproaching(limit: number, used: number): boolean {
  if (limit < 0) return false;
  return used * 5 >= limit * 4 || remainingOf(limit, used) <= 1;
}

/** Spec, "Usage report": usage by metric, one quota per metric, and those approaching their limit. */
export function usageReport(tenant: Tenant, period: string, plan: Plan, used: Partial<Record<Metric, number>>): UsageReport {
  const usage = { agents: 0, validations: 0, schedules: 0, benchmarkRuns: 0 };
  for (const metric of METRICS) usage[metric] = used[metric] ?? 0;
  const quotas = METRICS.map((metric) => {
    const limit = plan.limits[metric];
    return { metric, limit, used: usage[metric], remaining: remainingOf(limit, usage[metric]) };
  });
  const approachingLimit = quotas
    .filter((q) => isApproaching(q.limit, q.used))
    .map((q) => ({ ...q, percentUsed: q.limit > 0 ? Math.floor((q.used * 100) / q.limit) : 100 }));
  return { tenant, period, plan: structuredClone(plan) as UsageReport['plan'], usage, quotas, approachingLimit };
}
