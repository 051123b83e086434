import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PART } from './names.ts';

/**
 * Request tracing (observability/http-tracing.ts), registered first: its hooks must see every route
 * as it is registered, and every request before ours do. Registered with nothing to install when
 * the process records no traces, so that the parts with hooks can depend on it either way.
 */
export const tracingPlugin = fp(
  async (app: FastifyInstance, o: { install?: (app: FastifyInstance) => Promise<void> }) => {
    if (o.install !== undefined) await o.install(app);
  },
  { name: PART.tracing },
);
