/** Route sets of each service, registered on the shared edge app. */
export { tokenRoutes } from './token.ts';
export { executionRoutes } from './executions.ts';
export { executionReadRoutes } from './execution-reads.ts';
export { issueRoutes } from './issue.ts';
export { aiRoutes } from './ai.ts';
export { identityRoutes } from './identities.ts';
export { modelRoutes } from './models.ts';
export { tenantRoutes } from './tenants.ts';
export { billingRoutes, type BillingRoutesOptions } from './billing.ts';
export { signupRoutes, SIGNUP_SCOPES } from './signup.ts';
