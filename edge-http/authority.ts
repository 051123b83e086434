import type { AuditInput, ErrorData } from '../bus/index.ts';

/**
 * What a route requires. Every route declares one (fastify route `config.authority`); the app
 * refuses to start when a route declares none, so "no route is unguarded except those marked
 * public" (spec, core rule 8) holds by construction.
 *
 * - `public`: no credential.
 * - `scope`: a bearer capability token carrying `scope`; with `admin: true` the
 *   `X-Suite-Admin-Key` header is accepted instead (the spec's "(or admin key)" routes).
 * - `token`: any valid capability token, whatever its scopes (capability discovery,
 *   `GET /capabilities`); with `admin: true` the admin key too.
 * - `admin`: the admin key only (identities, model pins).
 * - `tenant`: the `X-Suite-Tenant-Key` header only (`GET /usage`).
 *
 * `carry` (scope routes that write through a chain writer: `POST /executions`): the allow's audit
 * entry is handed to the route (`carriedDecision`) to travel with its write into the write's commit,
 * instead of being synced to the journal on its own (AuditSink.carry).
 */
export type Authority =
  | { kind: 'public' }
  | { kind: 'scope'; scope: string; admin?: boolean; carry?: boolean }
  | { kind: 'token'; admin?: boolean }
  | { kind: 'admin' }
  | { kind: 'tenant' };

/** Who made a request, once the capability check passed. */
export interface Principal {
  kind: 'token' | 'admin' | 'tenant' | 'anonymous';
  /** Token subject; `admin` for the admin key; absent for anonymous and tenant-key callers. */
  sub?: string;
  scope: readonly string[];
  jti?: string;
  /** Token expiry, Unix seconds. */
  exp?: number;
  /** Tenant the token was issued under (claim `ten`), when any. */
  tenantId?: string;
  /** True when the token was obtained with proof of an enrolled identity's key (claim `prf`). */
  proven?: boolean;
  /** The token's audience (claim `aud`; RFC 8707 `resource` of the OAuth token endpoint). */
  aud?: string;
  /** The DPoP key the token is bound to (claim `cnf.jkt`, RFC 9449 §6). */
  jkt?: string;
  /** Conditions bound to scope entries (claim `cnd`): scope -> CEL, checked by the MCP gateway (docs/MCP.md). */
  conditions?: Readonly<Record<string, string>>;
}

export type Verified = { ok: true; principal: Principal } | { ok: false; error: ErrorData };

/**
 * The capability check's collaborators, injected into the edge. The edge owns no domain state but
 * the revocation view, which `trusted()` reports on: when it cannot be trusted, protected routes fail
 * closed with 503 `REVOCATION_UNAVAILABLE` (spec, Authentication rule 10).
 */
export interface CapabilityVerifier {
  /**
   * Verify a bearer token: signature, `typ`, `alg`, expiry, `nbf`, audience, revocation; refused
   * with SERVICE_UNAVAILABLE while the audit trail is stalled (a bearer is not served unaudited).
   */
  verifyBearer(token: string): Promise<Verified>;
  /**
   * The same check of a token, without the audit trail's state: for a route that decides about a
   * token it was handed (`POST /auth/token/validate`) and waits for its own entry to be durable.
   */
  checkToken(token: string): Promise<Verified>;
  /** Constant-time comparison of a presented admin key with the configured one(s). */
  isAdminKey(presented: string): boolean;
  /** Whether the revocation view is current within its staleness bound. */
  revocationTrusted(): boolean;
  /**
   * The replay check of a DPoP proof shared by every edge process (RFC 9449 §11.1): `first` once per
   * `jkt:jti` across the deployment, `replay` after, `unavailable` when the shared store cannot answer
   * (refused, fail closed). Absent: this process's cache alone (edge-http/dpop.ts).
   */
  dpopFirstUse?(jkt: string, jti: string, exp: number): Promise<'first' | 'replay' | 'unavailable'>;
}

/** One allow/deny decision of the capability check, appended to the audit chain. */
export interface AuditDecision {
  subject: string;
  action: string;
  resource: string;
  result: 'allow' | 'deny';
  reason: string;
  tenantId?: string;
}

/** An allow whose audit entry travels with the route's write into its commit (AuditSink.carry). */
export interface CarriedDecision {
  readonly entry: AuditInput;
  /** The write committed with the entry in it. */
  committedWithWrite(): void;
  /** Resolves once the entry is durable (journaled now unless its write committed it); rejects when it cannot be. */
  durable(): Promise<void>;
}

export interface AuditSink {
  record(decision: AuditDecision): void;
  /**
   * Record an allow whose entry the route's write will carry into its own commit; answers undefined
   * (having recorded it as usual) when the sink cannot carry entries. Absent: recorded as usual.
   */
  carry?(decision: AuditDecision): CarriedDecision | undefined;
  /**
   * Resolves once every decision recorded so far is durable in the audit chain; rejects when it
   * cannot be made so in time. A guarded route's answer waits for it (route-pipeline.ts).
   * Absent: answers do not wait (tests of the edge alone).
   */
  durable?(upTo?: number): Promise<void>;
  /** How many decisions were recorded so far: the guard's own is among them once it returned. */
  recorded?(): number;
  /**
   * Resolves once the decisions recorded so far are in the audit chain, or after a short bound
   * whatever happened (never rejects): a read of the trail waits for it so that it shows what this
   * edge answered before, although entries otherwise reach the chain in batches, off the answer's path.
   */
  committed?(): Promise<void>;
}
