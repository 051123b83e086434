/** Plans, billing periods and billing-webhook signatures: tenancy's rules, with no I/O. */
export { PLANS, findPlan, type Plan } from './plans.ts';
export { isPeriod, periodOf, periodEnd, PERIOD_PATTERN } from './period.ts';
export {
  SIGNATURE_HEADER,
  TOLERANCE_SECONDS,
  parseSignatureHeader,
  signWebhook,
  verifyWebhookSignature,
  webhookSecrets,
  type SignatureCheck,
} from './webhook-signature.ts';
export { newTenantId, newTenantKey, tenantKeyHash, TENANT_KEY_PREFIX, TENANT_ID_PATTERN } from './keys.ts';
