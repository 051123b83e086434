/**
 * The four plans (spec, "Plan"). The spec leaves the numbers to us; these are the ones a hosted
 * product of this kind would publish (documented in docs/PLANS.md). `-1` means unlimited.
 */
export interface Plan {
  id: 'free' | 'team' | 'business' | 'enterprise';
  label: string;
  priceCents: number;
  limits: {
    agents: number;
    validations: number;
    auditRetentionDays: number;
    schedules: number;
    benchmarkRuns: number;
  };
  features: string[];
}

export const PLANS: readonly Plan[] = Object.freeze(
  [
    {
      id: 'free',
      label: 'Free',
      priceCents: 0,
      limits: { agents: 100, validations: 10_000, auditRetentionDays: 7, schedules: 5, benchmarkRuns: 20 },
      features: ['capability-tokens', 'audit-trail', 'signed-execution-traces', 'public-verification'],
    },
    {
      id: 'team',
      label: 'Team',
      priceCents: 4_900,
      limits: { agents: 2_000, validations: 500_000, auditRetentionDays: 30, schedules: 50, benchmarkRuns: 500 },
      features: ['capability-tokens', 'audit-trail', 'signed-execution-traces', 'public-verification', 'scheduler', 'benchmarks', 'connectors'],
    },
    {
      id: 'business',
      label: 'Business',
      priceCents: 49_900,
      limits: { agents: 25_000, validations: 10_000_000, auditRetentionDays: 365, schedules: 500, benchmarkRuns: 5_000 },
      features: [
        'capability-tokens',
        'audit-trail',
        'signed-execution-traces',
        'public-verification',
        'scheduler',
        'benchmarks',
        'connectors',
        'trust-service',
        'identity-proof',
        'model-pins',
        'sso',
      ],
    },
    {
      id: 'enterprise',
      label: 'Enterprise',
      priceCents: 0,
      limits: { agents: -1, validations: -1, auditRetentionDays: 2_555, schedules: -1, benchmarkRuns: -1 },
      features: [
        'capability-tokens',
        'audit-trail',
        'signed-execution-traces',
        'public-verification',
        'scheduler',
        'benchmarks',
        'connectors',
        'trust-service',
        'identity-proof',
        'model-pins',
        'sso',
        'dedicated-support',
        'custom-retention',
        'self-hosted',
      ],
    },
  ].map((p) => Object.freeze(p)) as Plan[],
);

export function findPlan(id: string): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}
