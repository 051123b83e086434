import { scopeGrants } from '../capability/index.ts';

/**
 * What an exchange may give (RFC 8693 §2.1 `scope`): the requested scopes if every one is within
 * the ceiling (none requested: the whole ceiling), else the first one beyond it, refused as
 * `invalid_scope` by the caller. Never widens: a wildcard in the ceiling grants a narrower request,
 * a wildcard requested must itself be granted by the ceiling.
 */
export function exchangeScope(requested: readonly string[], ceiling: readonly string[]): { ok: true; scope: string[] } | { ok: false; beyond: string } {
  if (requested.length === 0) return { ok: true, scope: [...ceiling] };
  const beyond = requested.find((s) => !scopeGrants(ceiling, s));
  return beyond === undefined ? { ok: true, scope: [...requested] } : { ok: false, beyond };
}

/**
 * The issued token's lifetime: the rule's ceiling, never past the subject token's own `exp` (a
 * workload's identity should not outlive the token that proved it), at least one second.
 */
export function exchangeLifetime(maxLifetimeSeconds: number, subjectTokenExp: number, now: number): number {
  return Math.max(1, Math.min(maxLifetimeSeconds, subjectTokenExp - now));
}
