import fp from 'fastify-plugin';
import { PART } from './names.ts';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { scopeGrants } from '../../core/capability/index.ts';
import type { Authority, Principal } from '../authority.ts';
import { operation } from '../operations.ts';
import type { EdgeApp } from '../types.ts';
import { listRoutes } from './authority.ts';

const CapabilitiesSchema = Type.Object(
  {
    service: Type.String(),
    sub: Type.String(),
    scope: Type.Array(Type.String()),
    exp: Type.Optional(Type.Integer()),
    routes: Type.Array(Type.Object({ method: Type.String(), url: Type.String() })),
  },
  { description: 'Who the caller is and the routes of this listener its credential can call' },
);

/** Whether a principal that passed the capability check for `token` routes may call a route. */
export function mayCall(principal: Principal, authority: Authority): boolean {
  const admin = principal.kind === 'admin';
  switch (authority.kind) {
    case 'public':
      return true;
    case 'token':
      return !admin || authority.admin === true;
    case 'scope':
      return admin ? authority.admin === true : scopeGrants(principal.scope, authority.scope);
    case 'admin':
      return admin;
    case 'tenant':
      return false; // needs a tenant key, which is not a capability
  }
}

/**
 * `GET /capabilities` on every listener: who the caller is and which routes of this service its
 * credential can call. Discovery filtered by capability, as the spec asks of the MCP server: an
 * agent learns what it may do without probing, and never sees a route it cannot call.
 */
function installCapabilitiesRoute(app: EdgeApp, root: FastifyInstance, service: string): void {
  let all: ReturnType<typeof listRoutes> | undefined;
  app.get(
    '/capabilities',
    {
      config: { authority: { kind: 'token', admin: true } },
      schema: { ...operation('operations', 'getCapabilities', 'The routes of this listener the caller may call'), response: { 200: CapabilitiesSchema } },
    },
    async (request) => {
      const p = request.principal;
      // Routes are fixed once the app is ready: list them once, not on every request.
      all ??= listRoutes(root).filter((r) => r.method !== 'HEAD');
      const routes = all.filter((r) => mayCall(p, r.authority)).map((r) => ({ method: r.method, url: r.url }));
      return { service, sub: p.sub ?? 'anonymous', scope: [...p.scope], ...(p.exp !== undefined ? { exp: p.exp } : {}), routes };
    },
  );
}

/**
 * `GET /capabilities`: reads the route table the route pipeline keeps on the root instance (this
 * plugin does not encapsulate, so `app` is that root) and the principal its capability check sets.
 */
export const capabilitiesRoutePlugin = fp(
  async (app: FastifyInstance, o: { service: string }) => installCapabilitiesRoute(app as unknown as EdgeApp, app, o.service),
  {
    name: PART.capabilitiesRoute,
    dependencies: [PART.principal, PART.routePipeline, PART.openApi],
  },
);
