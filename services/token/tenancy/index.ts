/** Tenancy: plans, tenants and their keys, metering and usage reports, billing events, signup. */
export { TenancyActor } from './actor.ts';
export { SIGNUPS_PER_HOUR } from './signup.ts';
