/** Tenancy: plans, tenants and their keys, metering and usage reports, billing events, signup. */
export { TenancyActor, type TenancyActorOptions } from './actor.ts';
export { METRICS, usageReport, isApproaching, remainingOf } from './usage-report.ts';
export { SIGNUPS_PER_HOUR } from './signup.ts';
