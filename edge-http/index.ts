/** The shared HTTP edge: one app factory for the six listeners, and what route modules use. */
export { createEdgeApp } from './app.ts';
export type { EdgeApp, EdgeRoutes } from './types.ts';
export type { Authority, Principal, Verified, CapabilityVerifier, AuditDecision, AuditSink } from './authority.ts';
export type { TenantResolver } from './plugins/capability.ts';
export { billedTenantOf, type Meter } from './plugins/metering.ts';
export { listRoutes, routeSchemas, type RouteEntry } from './plugins/authority.ts';
export { sendResult, sendError, errorBody, type ServedElsewhere } from './plugins/errors.ts';
export { routeMatcher } from './route-match.ts';
export { carriedDecision } from './carried-decision.ts';
export { ADMIN_KEY_HEADER, TENANT_KEY_HEADER, bearerToken } from './credentials.ts';
export { ErrorBodySchema, answer, errorsOf } from './responses.ts';
export { operation, type Tag } from './operations.ts';
export { callerOf } from './caller.ts';
export { presentedToken, presentationProblem, DpopReplayCache } from './dpop.ts';
