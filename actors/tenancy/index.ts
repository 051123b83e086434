/** Tenancy: plans, tenants and their keys, metering and usage reports, billing events, signup. */
export { PLANS, findPlan, type Plan } from './plans.ts';
export { TenancyActor, type TenancyActorOptions } from './actor.ts';
export { newTenantKey, tenantKeyHash, TENANT_KEY_PREFIX, TENANT_ID_PATTERN } from './keys.ts';
export { isPeriod, periodOf, periodEnd, PERIOD_PATTERN } from './period.ts';
export { METRICS, usageReport, isApproaching, remainingOf } from './usage-report.ts';
export { SIGNUPS_PER_HOUR } from './signup.ts';
export {
  SIGNATURE_HEADER, TOLERANCE_SECONDS, parseSignatureHeader, signWebhook, verifyWebhookSignature, webhookSecrets,
  type SignatureCheck,
} from './webhook-signature.ts';
