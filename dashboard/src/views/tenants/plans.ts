import { apiOf, type ApiResult } from '../../api';

/** A plan as `GET /plans` publishes it (docs/PLANS.md); `-1` is unlimited. */
export interface Plan {
  id: string;
  label: string;
  priceCents: number;
  limits: Record<string, number>;
  features: string[];
}

export interface TenantInfo {
  id: string;
  name: string;
  plan: string;
  status: string;
  statusReason: string | null;
  externalRef: string | null;
  email: string | null;
  createdAt: string;
}

/** The spec's usage report (`GET /usage`, `GET /admin/tenants/:id`, each item of `GET /admin/tenants`). */
export interface UsageReport {
  tenant: TenantInfo;
  period: string;
  plan: Plan;
  usage: Record<string, unknown>;
  quotas: { metric: string; limit: number; used: number; remaining: number }[];
  approachingLimit: { metric: string; percentUsed: number }[];
}

export const readPlans = (): Promise<ApiResult<{ plans: Plan[] }>> => apiOf<{ plans: Plan[] }>('token', '/plans');

/** The metered quantities of a report: those its quotas and its usage name (a new metric shows without a change here). */
export function meteredOf(report: UsageReport): string[] {
  const names = new Set<string>([...report.quotas.map((q) => q.metric), ...Object.keys(report.usage)]);
  return [...names];
}

/** Health of one quota: near at 80% or one unit left (the spec's upgrade prompt), bad at the limit. */
export function quotaState(used: number, limit: number): 'ok' | 'warn' | 'bad' | 'unlimited' {
  if (limit < 0) return 'unlimited';
  if (used >= limit) return 'bad';
  if (used * 100 >= limit * 80 || limit - used <= 1) return 'warn';
  return 'ok';
}
