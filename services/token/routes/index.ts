/** The token service's route sets (listener 8081), registered in services/token/index.ts. */
export { tokenRoutes } from './token.ts';
export { issueRoutes } from './issue.ts';
export { aiRoutes } from './ai.ts';
export { identityRoutes } from './identities.ts';
export { modelRoutes } from './models.ts';
export { tenantRoutes } from './tenants.ts';
export { billingRoutes } from './billing.ts';
export { signupRoutes } from './signup.ts';
