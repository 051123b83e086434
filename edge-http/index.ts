/** The shared HTTP edge: one app factory for the six listeners, and what route modules use. */
export { createEdgeApp, type EdgeOptions } from './app.ts';
export type { EdgeApp, EdgeRoutes, ServiceName } from './types.ts';
export { SERVICES } from './types.ts';
export type { Authority, Principal, Verified, CapabilityVerifier, AuditDecision, AuditSink } from './authority.ts';
export type { TenantResolver } from './plugins/capability.ts';
export { QUOTA_HEADERS, billedTenantOf, type Meter } from './plugins/metering.ts';
export { listRoutes, routeSchemas, RouteDeclarationError, type RouteEntry } from './plugins/authority.ts';
export { sendResult, sendError, errorBody, type ErrorBody, type ServedElsewhere } from './plugins/errors.ts';
export { routeMatcher } from './route-match.ts';
export { HTTP_STATUS, statusOf } from './status.ts';
export { ADMIN_KEY_HEADER, TENANT_KEY_HEADER, bearerToken } from './credentials.ts';
export { REQUEST_ID_HEADER } from './plugins/request-id.ts';
export { HealthSchema, ReadySchema, NotReadySchema, type Health } from './plugins/ops.ts';
export { ErrorBodySchema, answer, errorsOf, errorResponse } from './responses.ts';
export { operation, TAGS, type Tag } from './operations.ts';
export { ANONYMOUS, ADMIN } from './principal.ts';
export { callerOf } from './caller.ts';
export { presentedToken, presentationProblem, DpopReplayCache } from './dpop.ts';
