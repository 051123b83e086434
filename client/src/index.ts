/**
 * `@agent-authority/client`: the Agent Authority Suite's five HTTP services, typed from their
 * OpenAPI documents (README.md). Offline verification is its own entry point,
 * `@agent-authority/client/verify` (Node only).
 */
export { createSuiteClient, LOCAL_URLS, type SuiteClient, type SuiteClientOptions, type Listener, type Validation, type RecordResult } from './client.ts';
export type { ServiceClient, UntypedInit } from './http.ts';
export type { CallInit, CallOptions, SuccessBody, OperationOf, PathsWith, Method } from './types.ts';
export {
  SuiteError,
  SuiteApiError,
  InvalidRequestError,
  AuthError,
  QuotaExceededError,
  NotFoundError,
  ConflictError,
  RateLimitedError,
  UnavailableError,
  TransportError,
} from './errors.ts';
export { DEFAULT_RETRY, NO_RETRY, type RetryPolicy } from './retry.ts';
export { clientCredentialsToken, deviceToken, OAuthTokenError, type OAuthToken, type DeviceUserCode } from './oauth.ts';
export type { paths as TokenPaths } from './generated/token.ts';
export type { paths as SchedulerPaths } from './generated/scheduler.ts';
export type { paths as BenchPaths } from './generated/bench.ts';
export type { paths as ConnectorPaths } from './generated/connector.ts';
export type { paths as TrustPaths } from './generated/trust.ts';
