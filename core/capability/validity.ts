import { scopeGrants } from './scope.ts';

/**
 * The answer of `POST /auth/token/validate` and the audit entry that records it, from the token's
 * check (signature, expiry, audience, revocation: done by the caller) and the optional required
 * scope (spec, "Token service": 200 `{valid:true, sub, scope, exp}`, 400 `{valid:false, error}`).
 * One rule for the HTTP edge, which decides locally, and the token actor, which answers the bus.
 */

/** What the token's check found: its claims, or the code it was refused with. */
export type TokenVerdict =
  | { ok: true; claims: { readonly sub: string; readonly scope: readonly string[]; readonly exp: number; readonly jti: string } }
  | { ok: false; code: string };

export type ValidityAnswer =
  | { valid: true; sub: string; scope: string[]; exp: number; requiredScope?: string; scopeSatisfied?: boolean }
  | { valid: false; error: string; requiredScope?: string; scopeSatisfied?: boolean };

/** The decision's audit entry, less who asked (the caller's tenant) and when: `action` is always `auth:token:validate`. */
export interface ValidityEntry {
  subject: string;
  resource: string;
  result: 'allow' | 'deny';
  reason: string;
}

export const VALIDATE_ACTION = 'auth:token:validate';

export function decideValidity(verdict: TokenVerdict, requiredScope: string | undefined): { answer: ValidityAnswer; entry: ValidityEntry } {
  if (!verdict.ok) {
    return { answer: { valid: false, error: verdict.code }, entry: { subject: 'unknown', resource: 'token', result: 'deny', reason: verdict.code } };
  }
  const { claims } = verdict;
  const resource = `token:${claims.jti}`;
  const valid = { valid: true as const, sub: claims.sub, scope: [...claims.scope], exp: claims.exp };
  if (requiredScope === undefined) {
    return { answer: valid, entry: { subject: claims.sub, resource, result: 'allow', reason: 'valid' } };
  }
  if (!scopeGrants(claims.scope, requiredScope)) {
    return {
      answer: { valid: false, error: 'CAPABILITY_INSUFFICIENT', requiredScope, scopeSatisfied: false },
      entry: { subject: claims.sub, resource, result: 'deny', reason: 'CAPABILITY_INSUFFICIENT' },
    };
  }
  return {
    answer: { ...valid, requiredScope, scopeSatisfied: true },
    entry: { subject: claims.sub, resource, result: 'allow', reason: `scope ${requiredScope} satisfied` },
  };
}
