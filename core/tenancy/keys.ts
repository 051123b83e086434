import { createHash, randomBytes } from 'node:crypto';

/**
 * Tenant identifiers and API keys. A key is 32 random bytes (256 bits) in base64url behind a `tk_`
 * prefix (so a leaked key is recognisable in logs and by secret scanners). Only its SHA-256 is
 * stored: with 256 bits of entropy nobody can search the key space, so a slow password hash would
 * add nothing but cost on every call that carries the key (docs/TENANCY.md).
 */
export const TENANT_KEY_PREFIX = 'tk_';

export function newTenantKey(): string {
  return `${TENANT_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256 of the key as presented; the edge sends this, never the key, over the bus. */
export function tenantKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Spec, "Tenant": shape `ten_<id>`; here 12 random bytes in hex. */
export function newTenantId(): string {
  return `ten_${randomBytes(12).toString('hex')}`;
}

export const TENANT_ID_PATTERN = /^ten_[0-9a-f]{24}$/;
