import { createHash, timingSafeEqual } from 'node:crypto';
import type { ErrorData } from '../bus/index.ts';
import type { AuditDecision, AuditSink, CapabilityVerifier, Principal, Verified } from '../edge-http/authority.ts';
import type { TenantResolver } from '../edge-http/plugins/capability.ts';

/**
 * Small real implementations of the edge's collaborators, for tests of the edge and of route
 * modules: tokens are opaque strings mapped to a principal or to the error verifying them gives.
 */
export class MapVerifier implements CapabilityVerifier {
  readonly #tokens = new Map<string, Verified>();
  readonly #adminKeyDigest: Buffer | null;
  #revocationTrusted = true;

  constructor(options: { adminKey?: string } = {}) {
    this.#adminKeyDigest = options.adminKey === undefined ? null : sha256(options.adminKey);
  }

  /** `token` verifies as `principal` (kind `token`). */
  grant(token: string, principal: Omit<Principal, 'kind'>): this {
    this.#tokens.set(token, { ok: true, principal: { kind: 'token', ...principal } });
    return this;
  }

  /** `token` fails verification with `error` (expired, revoked, wrong audience...). */
  refuse(token: string, error: ErrorData): this {
    this.#tokens.set(token, { ok: false, error });
    return this;
  }

  /** Simulate the revocation view going stale (or current again). */
  setRevocationTrusted(trusted: boolean): void {
    this.#revocationTrusted = trusted;
  }

  async verifyBearer(token: string): Promise<Verified> {
    return this.checkToken(token);
  }

  async checkToken(token: string): Promise<Verified> {
    return this.#tokens.get(token) ?? { ok: false, error: { code: 'TOKEN_INVALID', message: 'token not recognised' } };
  }

  /** Digests first, so the comparison takes the same time whatever the presented length. */
  isAdminKey(presented: string): boolean {
    return this.#adminKeyDigest !== null && timingSafeEqual(sha256(presented), this.#adminKeyDigest);
  }

  revocationTrusted(): boolean {
    return this.#revocationTrusted;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Keeps every decision in order, for assertions. */
export class RecordingAudit implements AuditSink {
  readonly decisions: AuditDecision[] = [];
  record(decision: AuditDecision): void {
    this.decisions.push(decision);
  }
}

/** Tenant keys mapped to tenants; a suspended tenant answers `TENANT_SUSPENDED`. */
export class MapTenants implements TenantResolver {
  readonly #tenants = new Map<string, { tenantId: string; suspended: boolean }>();

  add(key: string, tenantId: string, options: { suspended?: boolean } = {}): this {
    this.#tenants.set(key, { tenantId, suspended: options.suspended === true });
    return this;
  }

  async resolve(key: string): Promise<{ ok: true; tenantId: string } | { ok: false; error: ErrorData }> {
    const tenant = this.#tenants.get(key);
    if (tenant === undefined) return { ok: false, error: { code: 'TENANT_KEY_INVALID', message: 'tenant key not recognised' } };
    if (tenant.suspended) return { ok: false, error: { code: 'TENANT_SUSPENDED', message: 'tenant is suspended' } };
    return { ok: true, tenantId: tenant.tenantId };
  }
}
