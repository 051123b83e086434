/**
 * The credential headers of the spec's Authentication table, and how a bearer token is read from
 * `Authorization`. Node lower-cases incoming header names.
 */
export const ADMIN_KEY_HEADER = 'x-suite-admin-key';
export const TENANT_KEY_HEADER = 'x-suite-tenant-key';

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the header is not of that
 * form. The scheme is case-insensitive (RFC 7235 §2.1); the token is everything after one space
 * (RFC 6750 §2.1), surrounding whitespace trimmed.
 */
export function bearerToken(header: string): string | null {
  if (header.length <= 7) return null;
  if (!header.startsWith('Bearer ') && header.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  const token = header.slice(7).trim();
  return token === '' ? null : token;
}
