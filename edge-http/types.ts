import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Authority, Principal } from './authority.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route requires; mandatory (the app refuses to start without it). */
    authority?: Authority;
  }
  interface FastifyRequest {
    /** Who made the request: set by the capability check; `anonymous` on public routes. */
    readonly principal: Principal;
  }
}

// The listeners are named once, in the configuration that gives them their ports.
export { SERVICES, type ServiceName } from '../config/index.ts';

/**
 * The app route modules receive. Routes are typed from their TypeBox schemas, so
 *
 *   app.get('/x', { config: { authority: { kind: 'scope', scope: 'a:b' } }, schema: { querystring: Q } },
 *     async (request) => request.query.limit)
 *
 * infers `request.query` from `Q`.
 */
export type EdgeApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A service's routes: registered in their own encapsulated plugin under the shared edge plugins. */
export type EdgeRoutes = (app: EdgeApp) => void | Promise<void>;
