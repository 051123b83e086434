import type { FastifyRequest } from 'fastify';
import type { Caller } from '../bus/index.ts';

/** The caller as the capability check established it, in the shape bus requests carry. */
export function callerOf(request: FastifyRequest): Caller {
  const p = request.principal;
  const caller: Caller = { kind: p.kind === 'admin' ? 'admin' : 'token', sub: p.sub ?? 'anonymous', scope: [...p.scope] };
  if (p.jti !== undefined) caller.jti = p.jti;
  if (p.tenantId !== undefined) caller.tenantId = p.tenantId;
  if (p.conditions !== undefined) caller.conditions = { ...p.conditions };
  return caller;
}
