import type { Caller } from '../bus/index.ts';
import type { Principal } from '../edge-http/index.ts';

/** The caller as bus requests carry it (edge-http/caller.ts, from a principal rather than a request). */
export function callerOfPrincipal(p: Principal): Caller {
  const caller: Caller = { kind: p.kind === 'admin' ? 'admin' : 'token', sub: p.sub ?? 'anonymous', scope: [...p.scope] };
  if (p.jti !== undefined) caller.jti = p.jti;
  if (p.tenantId !== undefined) caller.tenantId = p.tenantId;
  if (p.conditions !== undefined) caller.conditions = { ...p.conditions };
  return caller;
}

/** What the edge knows for certain about a caller, as execution records attest it. */
export function attestationOf(p: Principal) {
  return { jti: p.jti ?? null, sub: p.sub ?? 'anonymous', scope: [...p.scope], proven: p.proven === true, tenantId: p.tenantId ?? null };
}
