/** Tenancy: plans (quotas, usage and tenants come with the tenancy issue). */
export { PLANS, findPlan, type Plan } from './plans.ts';
