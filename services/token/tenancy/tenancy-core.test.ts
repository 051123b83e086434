import { describe, expect, it } from 'vitest';
import { newTenantId, newTenantKey, tenantKeyHash, TENANT_ID_PATTERN } from '../../../core/tenancy/index.ts';
import { isPeriod, periodEnd, periodOf } from '../../../core/tenancy/index.ts';
import { findPlan, PLANS } from '../../../core/tenancy/index.ts';
import { isApproaching, remainingOf, usageReport } from './usage-report.ts';

const tenant = {
  id: 'ten_000000000000000000000001',
  name: 'Acme',
  plan: 'free' as const,
  status: 'active' as const,
  statusReason: null,
  externalRef: null,
  email: null,
  createdAt: '2025-01-01T00:00:00.000Z',
};

describe('tenant keys and ids', () => {
  it('makes keys of 256 random bits behind a tk_ prefix, all different', () => {
    const keys = new Set(Array.from({ length: 1000 }, newTenantKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
  });

  it('stores a key as the hex SHA-256 of its text, which differs for keys one character apart', () => {
    expect(tenantKeyHash('tk_abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(tenantKeyHash('tk_abc')).not.toBe(tenantKeyHash('tk_abd'));
    // Known answer: sha256("abc").
    expect(tenantKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes tenant ids of the spec shape ten_<id>', () => {
    for (let i = 0; i < 100; i++) expect(newTenantId()).toMatch(TENANT_ID_PATTERN);
  });
});

describe('the quota window (UTC calendar month)', () => {
  it('names the UTC month of an instant, not the local one', () => {
    expect(periodOf(Date.parse('2025-01-31T23:59:59.999Z'))).toBe('2025-01');
    expect(periodOf(Date.parse('2025-02-01T00:00:00.000Z'))).toBe('2025-02');
    expect(periodOf(Date.parse('2024-12-31T23:30:00-02:00'))).toBe('2025-01');
  });

  it('closes a period at 00:00 UTC on the first of the next month, December into January', () => {
    expect(periodEnd('2025-01').toISOString()).toBe('2025-02-01T00:00:00.000Z');
    expect(periodEnd('2024-02').toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect(periodEnd('2025-12').toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(periodEnd('0099-05').toISOString()).toBe('0099-06-01T00:00:00.000Z');
  });

  it('accepts YYYY-MM only', () => {
    for (const ok of ['2025-01', '2025-12', '1999-09']) expect(isPeriod(ok)).toBe(true);
    for (const bad of ['2025-1', '2025-13', '2025-00', '25-01', '2025-01-01', '2025/01', ' 2025-01', '']) expect(isPeriod(bad)).toBe(false);
    expect(() => periodEnd('2025-13')).toThrow(RangeError);
  });
});

describe('the usage report', () => {
  it('lists every metered metric with zero usage when nothing was counted', () => {
    const report = usageReport(tenant, '2025-03', findPlan('free')!, {});
    expect(report.usage).toEqual({ agents: 0, validations: 0, schedules: 0, benchmarkRuns: 0 });
    expect(report.quotas).toEqual([
      { metric: 'agents', limit: 100, used: 0, remaining: 100 },
      { metric: 'validations', limit: 10_000, used: 0, remaining: 10_000 },
      { metric: 'schedules', limit: 5, used: 0, remaining: 5 },
      { metric: 'benchmarkRuns', limit: 20, used: 0, remaining: 20 },
    ]);
    expect(report.approachingLimit).toEqual([]);
    expect(report.plan).toEqual(findPlan('free'));
    expect(report).toMatchObject({ tenant, period: '2025-03' });
  });

  it('flags a metric from 80% of its limit, and one with a single unit left, but not 79%', () => {
    const free = findPlan('free')!;
    const report = usageReport(tenant, '2025-03', free, { agents: 80, validations: 7_999, schedules: 4, benchmarkRuns: 20 });
    expect(report.approachingLimit).toEqual([
      { metric: 'agents', limit: 100, used: 80, remaining: 20, percentUsed: 80 },
      { metric: 'schedules', limit: 5, used: 4, remaining: 1, percentUsed: 80 },
      { metric: 'benchmarkRuns', limit: 20, used: 20, remaining: 0, percentUsed: 100 },
    ]);
  });

  it('flags one unit left even far below 80% of a tiny limit, and never flags an unlimited metric', () => {
    expect(isApproaching(2, 1)).toBe(true);
    expect(isApproaching(10, 7)).toBe(false);
    expect(isApproaching(10, 8)).toBe(true);
    expect(isApproaching(-1, 1_000_000_000)).toBe(false);
    expect(remainingOf(-1, 5)).toBe(-1);
    expect(remainingOf(10, 12)).toBe(0);
    const enterprise = usageReport({ ...tenant, plan: 'enterprise' }, '2025-03', findPlan('enterprise')!, { validations: 10 ** 9 });
    expect(enterprise.quotas.find((q) => q.metric === 'validations')).toEqual({ metric: 'validations', limit: -1, used: 10 ** 9, remaining: -1 });
    expect(enterprise.approachingLimit).toEqual([]);
  });

  it('hands out a copy of the plan, never the frozen plan itself', () => {
    const report = usageReport(tenant, '2025-03', PLANS[0]!, {});
    report.plan.limits.agents = 1;
    expect(PLANS[0]!.limits.agents).toBe(100);
  });
});
