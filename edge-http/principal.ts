import fp from 'fastify-plugin';
import { PART } from './plugins/names.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from './authority.ts';

/** Callers with no credential: public routes, and the subject of denials before a token is read. */
export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', scope: Object.freeze([]) });

/** The admin key grants full authority (spec, Authentication table). */
export const ADMIN: Principal = Object.freeze({ kind: 'admin', sub: 'admin', scope: Object.freeze(['*']) });

/**
 * Backing slot for `request.principal`. Fastify decorations must start as primitives (a shared
 * object default would leak between requests), so the slot starts null and the public getter
 * answers `ANONYMOUS` until the capability check stores a principal: public routes pay nothing.
 */
const kPrincipal = Symbol('edge.principal');

interface PrincipalSlot {
  [kPrincipal]: Principal | null;
}

function installPrincipal(app: FastifyInstance): void {
  app.decorateRequest(kPrincipal, null);
  app.decorateRequest('principal', {
    getter(this: FastifyRequest): Principal {
      return (this as unknown as PrincipalSlot)[kPrincipal] ?? ANONYMOUS;
    },
  });
}

/** `request.principal`, which the capability check (route pipeline) sets and routes read. */
export const principalPlugin = fp(async (app: FastifyInstance) => installPrincipal(app), { name: PART.principal });

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  (request as unknown as PrincipalSlot)[kPrincipal] = principal;
}
