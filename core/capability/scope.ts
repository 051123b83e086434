/**
 * Scope matching (spec, Authentication rule 1): scopes have the form `resource:action`, matched
 * segment by segment. `*` in a granted scope matches exactly one segment, so `read:*` grants
 * `read:users` and never `read:users:delete`. A bare `*` grants everything.
 */

const SEGMENT = /^(?:\*|[A-Za-z0-9_.-]+)$/;

/** A well-formed scope: `*`, or two or more non-empty colon-separated segments. */
export function isValidScope(scope: string): boolean {
  if (scope === '*') return true;
  if (scope.length > 200) return false;
  const segments = scope.split(':');
  if (segments.length < 2) return false;
  return segments.every((s) => SEGMENT.test(s));
}

/** Whether one granted scope grants the required scope. */
export function scopeGrantsOne(granted: string, required: string): boolean {
  if (granted === '*') return true;
  if (granted === required) return true;
  const g = granted.split(':');
  const r = required.split(':');
  if (g.length !== r.length) return false;
  for (let i = 0; i < g.length; i++) {
    const gs = g[i];
    if (gs !== '*' && gs !== r[i]) return false;
  }
  return true;
}

/** Whether any of the granted scopes grants the required scope. */
export function scopeGrants(granted: readonly string[], required: string): boolean {
  for (const g of granted) if (scopeGrantsOne(g, required)) return true;
  return false;
}
