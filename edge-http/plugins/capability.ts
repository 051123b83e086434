import type { FastifyRequest } from 'fastify';
import { SuiteError, type ErrorCode, type ErrorData } from '../../bus/index.ts';
import { scopeGrants } from '../../core/capability/index.ts';
import type { AuditSink, Authority, CapabilityVerifier, Principal, Verified } from '../authority.ts';
import { ADMIN_KEY_HEADER, TENANT_KEY_HEADER } from '../credentials.ts';
import { presentationProblem, presentedToken } from '../dpop.ts';
import { ADMIN, setPrincipal } from '../principal.ts';
import { markBilledTenant } from './metering.ts';
import { keepCarried } from '../carried-decision.ts';

/**
 * Resolves `X-Suite-Tenant-Key` (spec, Authentication rule 6): on `tenant` routes, and beside the
 * credential of every other guarded route. Every call asks the tenancy actor (no edge cache), so a
 * rotated key or a suspension holds in every process from the moment it is answered. Without a
 * resolver, every tenant key is refused with 401 `TENANT_KEY_INVALID`.
 */
export interface TenantResolver {
  resolve(key: string): Promise<{ ok: true; tenantId: string } | { ok: false; error: ErrorData }>;
}

export interface CapabilityDeps {
  verifier: CapabilityVerifier;
  audit: AuditSink;
  tenants?: TenantResolver;
  /** Told of each credential the check accepted, so the rate limiter gives it its own budget (plugins/rate-limit.ts). */
  admitted?: (kind: 'token' | 'admin', credential: string) => void;
}

/** A route's guard: throws a `SuiteError` to deny, returns to let the request through. */
export type Guard = (request: FastifyRequest) => Promise<void>;

/** What a decision is about: `${service} ${METHOD} ${route pattern}`, per method of the route. */
export type Resources = Readonly<Record<string, string>>;

/**
 * One decision path per authority kind, built once per route at registration so the request path
 * only reads headers and calls the verifier. Every allow and every deny is audited (subject, the
 * required scope or `admin`/`tenant`, the resource, and the code or `granted`).
 */
export function guardFor(authority: Authority, resources: Resources, deps: CapabilityDeps): Guard | null {
  switch (authority.kind) {
    case 'public':
      return null;
    case 'scope':
      return scopeGuard(authority.scope, authority.admin === true, resources, deps, authority.carry === true);
    case 'token':
      return scopeGuard(null, authority.admin === true, resources, deps);
    case 'admin':
      return adminGuard(resources, deps);
    case 'tenant':
      return tenantGuard(resources, deps);
  }
}

interface Decision {
  readonly action: string;
  readonly resources: Resources;
  readonly audit: AuditSink;
  /** The allow's entry travels with the route's write (Authority `carry`). */
  readonly carry?: boolean;
}

function resourceOf(decision: Decision, request: FastifyRequest): string {
  // Every method of the route has an entry; the fallback only keeps a raw URL out of the audit.
  return decision.resources[request.method] ?? 'unknown route';
}

function allow(d: Decision, request: FastifyRequest, principal: Principal, subject: string): void {
  const decision = {
    subject,
    action: d.action,
    resource: resourceOf(d, request),
    result: 'allow' as const,
    reason: 'granted',
    tenantId: principal.tenantId,
  };
  if (d.carry === true && d.audit.carry !== undefined) {
    const carried = d.audit.carry(decision);
    if (carried !== undefined) keepCarried(request, carried);
  } else d.audit.record(decision);
  setPrincipal(request, principal);
}

function deny(d: Decision, request: FastifyRequest, subject: string, code: ErrorCode, message: string, tenantId?: string): never {
  d.audit.record({ subject, action: d.action, resource: resourceOf(d, request), result: 'deny', reason: code, tenantId });
  throw new SuiteError(code, message);
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The admin key compared in constant time by the verifier; a wrong key is never a fallback to anything else. */
async function admitAdminKey(d: Decision, request: FastifyRequest, key: string, deps: CapabilityDeps): Promise<void> {
  if (!deps.verifier.isAdminKey(key)) deny(d, request, 'anonymous', 'TOKEN_INVALID', 'admin key not recognised');
  deps.admitted?.('admin', key);
  const tenantKey = headerValue(request, TENANT_KEY_HEADER);
  allow(d, request, tenantKey === undefined ? ADMIN : await withTenantKey(d, request, ADMIN, tenantKey, deps.tenants), 'admin');
}

/**
 * The tenant a tenant key names, joined to the principal its credential established (spec,
 * Authentication rule 6): unknown 401 `TENANT_KEY_INVALID`, suspended 403 `TENANT_SUSPENDED`. A
 * token issued under one tenant (claim `ten`) presented with another tenant's key is refused with
 * 403 `CAPABILITY_INSUFFICIENT`: the key cannot move a token into a tenant it was not issued for.
 * The request is then billed to the tenant (plugins/metering.ts).
 */
async function withTenantKey(d: Decision, request: FastifyRequest, principal: Principal, key: string, tenants: TenantResolver | undefined): Promise<Principal> {
  const subject = principal.sub ?? 'anonymous';
  if (tenants === undefined) deny(d, request, subject, 'TENANT_KEY_INVALID', 'tenant keys are not accepted by this deployment', principal.tenantId);
  if (key === '') deny(d, request, subject, 'TENANT_KEY_INVALID', `the ${TENANT_KEY_HEADER} header is empty`, principal.tenantId);
  const resolved = await resolveOrDeny(d, request, subject, key, tenants);
  if (principal.tenantId !== undefined && principal.tenantId !== resolved) {
    deny(d, request, subject, 'CAPABILITY_INSUFFICIENT', 'the token was issued for another tenant than the tenant key names', principal.tenantId);
  }
  markBilledTenant(request, resolved);
  return { ...principal, tenantId: resolved };
}

async function resolveOrDeny(d: Decision, request: FastifyRequest, subject: string, key: string, tenants: TenantResolver): Promise<string> {
  let resolved: Awaited<ReturnType<TenantResolver['resolve']>>;
  try {
    resolved = await tenants.resolve(key);
  } catch (err) {
    // Audited before the 500 reports it, like a failing verifier.
    d.audit.record({ subject, action: d.action, resource: resourceOf(d, request), result: 'deny', reason: 'INTERNAL_ERROR', tenantId: undefined });
    throw err;
  }
  if (!resolved.ok) deny(d, request, subject, resolved.error.code, resolved.error.message);
  return resolved.tenantId;
}

/**
 * Bearer token route (spec, Authentication rules 2-4 and 10). When the route also accepts the admin
 * key and that header is present, the admin key decides alone: a wrong key is 401 even beside a
 * valid token, so a caller never gets a different authority than the one it presented.
 */
function scopeGuard(scope: string | null, acceptsAdmin: boolean, resources: Resources, deps: CapabilityDeps, carry = false): Guard {
  // `null`: any valid token will do (authority kind `token`); audited under the action `token`.
  const d: Decision = { action: scope ?? 'token', resources, audit: deps.audit, carry };
  const { verifier } = deps;
  return async function checkScope(request) {
    if (acceptsAdmin) {
      const key = headerValue(request, ADMIN_KEY_HEADER);
      if (key !== undefined) return admitAdminKey(d, request, key, deps);
    }
    const authorization = request.headers.authorization;
    if (authorization === undefined) deny(d, request, 'anonymous', 'TOKEN_MISSING', 'no Authorization header');
    const presented = presentedToken(authorization);
    if (presented === null) deny(d, request, 'anonymous', 'TOKEN_INVALID', 'Authorization must be "Bearer <token>"');
    const { token, scheme } = presented;
    // Fail closed (rule 10): a token cannot be trusted while revocations may be missing.
    if (!verifier.revocationTrusted()) {
      deny(d, request, 'anonymous', 'REVOCATION_UNAVAILABLE', 'revocation status unavailable; nothing was done; try again shortly');
    }
    const verified = await verifyOrDeny(d, request, verifier, token);
    const principal = verified.principal;
    const subject = principal.sub ?? 'anonymous';
    // RFC 9449 §7: a DPoP-bound token only with a proof by its key; never as Bearer (docs/OAUTH.md).
    const dpop = await presentationProblem(request, principal, scheme, token, verifier.dpopFirstUse?.bind(verifier));
    if (dpop !== undefined) deny(d, request, subject, dpop.code, dpop.message, principal.tenantId);
    deps.admitted?.('token', token);
    if (scope !== null && !scopeGrants(principal.scope, scope)) {
      deny(d, request, subject, 'CAPABILITY_INSUFFICIENT', `token does not grant ${scope}`, principal.tenantId);
    }
    // Without a tenant key (the common, unmetered case) this is the one extra header look-up.
    const tenantKey = headerValue(request, TENANT_KEY_HEADER);
    allow(d, request, tenantKey === undefined ? principal : await withTenantKey(d, request, principal, tenantKey, deps.tenants), subject);
  };
}

async function verifyOrDeny(d: Decision, request: FastifyRequest, verifier: CapabilityVerifier, token: string): Promise<Extract<Verified, { ok: true }>> {
  let verified: Verified;
  try {
    verified = await verifier.verifyBearer(token);
  } catch (err) {
    // The verifier failing is a denial too (fail closed), audited before the 500 reports it.
    d.audit.record({
      subject: 'anonymous',
      action: d.action,
      resource: resourceOf(d, request),
      result: 'deny',
      reason: 'INTERNAL_ERROR',
      tenantId: undefined,
    });
    throw err;
  }
  if (!verified.ok) deny(d, request, 'anonymous', verified.error.code, verified.error.message);
  return verified;
}

/** Admin-key-only route (identities, model pins): a bearer token, whatever its scopes, is not enough. */
function adminGuard(resources: Resources, deps: CapabilityDeps): Guard {
  const d: Decision = { action: 'admin', resources, audit: deps.audit };
  return async function checkAdmin(request) {
    const key = headerValue(request, ADMIN_KEY_HEADER);
    if (key !== undefined) return admitAdminKey(d, request, key, deps);
    if (request.headers.authorization !== undefined) {
      deny(d, request, 'anonymous', 'CAPABILITY_INSUFFICIENT', 'this route requires the admin key');
    }
    deny(d, request, 'anonymous', 'TOKEN_MISSING', `this route requires the ${ADMIN_KEY_HEADER} header`);
  };
}

/** Tenant-key route (`GET /usage`; spec: 401 without tenant key, rule 6 for unknown and suspended). */
function tenantGuard(resources: Resources, deps: CapabilityDeps): Guard {
  const d: Decision = { action: 'tenant', resources, audit: deps.audit };
  return async function checkTenant(request) {
    const key = headerValue(request, TENANT_KEY_HEADER);
    if (key === undefined || key === '') {
      deny(d, request, 'anonymous', 'TENANT_KEY_INVALID', `this route requires the ${TENANT_KEY_HEADER} header`);
    }
    if (deps.tenants === undefined) {
      deny(d, request, 'anonymous', 'TENANT_KEY_INVALID', 'tenant keys are not accepted by this deployment');
    }
    const tenantId = await resolveOrDeny(d, request, 'anonymous', key, deps.tenants);
    const principal: Principal = { kind: 'tenant', scope: [], tenantId };
    allow(d, request, principal, 'tenant');
  };
}
