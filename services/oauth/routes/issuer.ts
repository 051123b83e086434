import type { FastifyRequest } from 'fastify';
import type { RouteContext } from '../../kit/index.ts';

/**
 * The issuer (RFC 8414 §2): `SUITE_PUBLIC_URL`, else the token listener's own address, else the Host
 * the request came to. Endpoints are the issuer plus their path, so a DPoP `htu` and an assertion's
 * `aud` name what discovery said.
 */
export function issuerOf(ctx: Pick<RouteContext, 'config' | 'listenerUrl'>, request: FastifyRequest): string {
  const configured = ctx.config.publicUrl ?? ctx.listenerUrl('token');
  return (configured ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}
