import type { EdgeRoutes } from '../../../edge-http/index.ts';
import type { RouteContext } from '../../kit/index.ts';
import { addFormParser } from './form.ts';
import { discoveryRoutes } from './discovery.ts';
import { authorizeRoutes } from './authorize.ts';
import { endpointRoutes } from './endpoints.ts';
import { clientRoutes } from './clients.ts';

/**
 * The OAuth routes on the token listener, in their own encapsulated context: the form parser they
 * need (RFC 6749 §3.2) is added there, so no other route of the listener accepts a form body.
 */
export function oauthRoutes(ctx: RouteContext): EdgeRoutes {
  return async (app) => {
    await app.register(async (scoped) => {
      addFormParser(scoped);
      discoveryRoutes(scoped, ctx);
      authorizeRoutes(scoped, ctx.bus, ctx);
      endpointRoutes(scoped, ctx.bus, ctx);
      clientRoutes(scoped, ctx.bus, ctx);
    });
  };
}

export { REGISTRATION_RATE_LIMIT } from './clients.ts';
