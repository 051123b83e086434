import { createLocalJWKSet, createRemoteJWKSet, customFetch, type FetchImplementation, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { guardedRequest, type OutboundGuard } from '../../actors/outbound/index.ts';
import type { KeyResolverFor, TrustedIssuer, TrustedIssuers } from '../../core/federation/index.ts';

/** A JWKS larger than this is refused: a real issuer's set is a few KiB. */
const MAX_JWKS_BYTES = 256 * 1024;
const JWKS_TIMEOUT_MS = 5000;
/** Keys are kept this long; an unknown `kid` refetches sooner, at most once per cooldown (jose). */
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;

/** Workload identity federation at run time: the checked trusted-issuer file and each issuer's keys. */
export interface Federation {
  readonly trust: TrustedIssuers;
  readonly keysFor: KeyResolverFor;
  close(): Promise<void>;
}

/**
 * jose's remote JWKS (cached, refetched on an unknown `kid` after its cooldown) with its fetch routed
 * through the suite's outbound SSRF guard (actors/outbound): the issuer's `jwksUri` is an address an
 * operator typed, and its name may resolve to the metadata endpoint; the guard resolves, checks and
 * pins each connection as it does for the scheduler and the connectors.
 */
export function createFederation(trust: TrustedIssuers, guard: OutboundGuard, options: { cooldownMs?: number } = {}): Federation {
  const fetchThroughGuard: FetchImplementation = async (url, options) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    new Headers(options.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const res = await guardedRequest(guard, {
      url,
      headers,
      timeoutMs: JWKS_TIMEOUT_MS,
      maxBodyBytes: MAX_JWKS_BYTES + 1,
    });
    if (res.truncated || res.body.length > MAX_JWKS_BYTES) throw new Error(`the JWKS at ${url} is larger than ${MAX_JWKS_BYTES} bytes`);
    return new Response(new Uint8Array(res.body), { status: res.status, headers: { 'content-type': 'application/json' } });
  };
  const resolvers = new Map<string, JWTVerifyGetKey>();
  const resolverOf = (issuer: TrustedIssuer): JWTVerifyGetKey => {
    if (issuer.jwks !== undefined) return createLocalJWKSet(issuer.jwks as JSONWebKeySet);
    return createRemoteJWKSet(new URL(issuer.jwksUri as string), {
      [customFetch]: fetchThroughGuard,
      timeoutDuration: JWKS_TIMEOUT_MS,
      cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
      cooldownDuration: options.cooldownMs ?? JWKS_COOLDOWN_MS,
    });
  };
  for (const issuer of trust.issuers) resolvers.set(issuer.issuer, resolverOf(issuer));
  return {
    trust,
    keysFor: (issuer) => resolvers.get(issuer.issuer) as JWTVerifyGetKey,
    close: () => guard.close(),
  };
}
