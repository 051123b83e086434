import { isValidScope, scopeGrants } from '../capability/index.ts';

/**
 * OAuth scopes travel as one space-delimited string (RFC 6749 §3.3); the suite's are `resource:action`
 * entries (core/capability). Parsing refuses an entry the suite would not mint, so a grant never
 * reaches the token service with a scope it must refuse.
 */
export function parseScopeParam(value: string | undefined): { ok: true; scope: string[] } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true, scope: [] };
  const entries = value.split(' ').filter((s) => s !== '');
  if (entries.length > 100) return { ok: false, problem: 'at most 100 scopes' };
  const bad = entries.find((s) => !isValidScope(s));
  if (bad !== undefined) return { ok: false, problem: `"${bad.slice(0, 80)}" is not a scope of the form resource:action` };
  return { ok: true, scope: [...new Set(entries)] };
}

/** The first requested scope the ceiling does not grant, if any (wildcards in the ceiling grant as on every edge). */
export function scopeBeyond(ceiling: readonly string[], requested: readonly string[]): string | undefined {
  return requested.find((s) => !scopeGrants(ceiling, s));
}
