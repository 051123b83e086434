import { hash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SuiteError } from '../../bus/index.ts';
import { ADMIN_KEY_HEADER, bearerToken } from '../credentials.ts';

export interface RateLimitOptions {
  /** Requests allowed per key and window. */
  max: number;
  windowMs: number;
}

export type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

function digest(secret: string): string {
  return hash('sha256', secret, 'base64url').slice(0, 22);
}

/** Distinct callers remembered by a key generator before it starts over (bounds its memory). */
const KEY_CACHE_SIZE = 10_000;

/**
 * Whose budget a request spends (issue 25, finding 5). A credential this process has verified
 * (a bearer token the capability check accepted, the admin key it recognised) spends its own
 * budget; anything else, a made-up token included, spends its client address's. The limiter runs
 * before the capability check (to shield the verifier from floods), so it cannot verify: it only
 * recognises what the check has already admitted (`admit`). Keying on the unverified bearer let every
 * random string open a fresh budget; now a flood of them shares one, the address's. The first request
 * of a good token is not yet admitted and so spends the address's budget once.
 *
 * Credentials are keyed by a SHA-256 prefix, so the limiter's store never holds a usable secret.
 * Admitted credentials are remembered in bounded maps (dropped wholesale when full: only verified
 * credentials enter, so a flood of made-up tokens cannot churn them; a dropped one is re-admitted on
 * its next request). A revoked token keeps its key; the check refuses it, and it spends only its own budget.
 */
export interface RateLimitKeys {
  key(request: FastifyRequest): string;
  /** The capability check accepted this credential: from now on it spends its own budget. */
  admit(kind: 'token' | 'admin', credential: string): void;
}

export function createRateLimitKeys(): RateLimitKeys {
  const byToken = new Map<string, string>();
  const byAdminKey = new Map<string, string>();
  const remember = (keys: Map<string, string>, credential: string, make: (credential: string) => string): void => {
    if (keys.has(credential)) return;
    if (keys.size >= KEY_CACHE_SIZE) keys.clear();
    keys.set(credential, make(credential));
  };
  return {
    key(request) {
      const authorization = request.headers.authorization;
      if (authorization !== undefined) {
        const token = bearerToken(authorization);
        const key = token === null ? undefined : byToken.get(token);
        if (key !== undefined) return key;
      }
      const adminKey = request.headers[ADMIN_KEY_HEADER];
      if (typeof adminKey === 'string') {
        const key = byAdminKey.get(adminKey);
        if (key !== undefined) return key;
      }
      return ipKey(request.ip);
    },
    admit(kind, credential) {
      if (kind === 'token') remember(byToken, credential, tokenKey);
      else remember(byAdminKey, credential, adminKeyKey);
    },
  };
}

const tokenKey = (token: string): string => `t:${digest(token)}`;
const adminKeyKey = (adminKey: string): string => `a:${digest(adminKey)}`;
// Not cached: the address is already a short string the store can key on directly.
const ipKey = (ip: string): string => `ip:${ip}`;

/**
 * Burst limiting with @fastify/rate-limit (spec: 429 `RATE_LIMITED` with `Retry-After`). Registered
 * with `global: false` and handed back as a hook, so the route pipeline decides where it runs
 * (first, before the capability check) and which routes skip it (the operations routes).
 * A route that sets its own `config.rateLimit` gets the plugin's per-route limiter instead (which
 * then runs after the capability check).
 */
export async function createLimiter(app: FastifyInstance, options: RateLimitOptions, keys: RateLimitKeys): Promise<Limiter> {
  await app.register(rateLimit, {
    global: false,
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: keys.key,
    // The informational x-ratelimit-* headers cost CPU and bytes on every answer (measurably, on a
    // small GET); the spec asks only for Retry-After, which a 429 still carries along with them.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (_request, context) => new SuiteError('RATE_LIMITED', `rate limit exceeded, retry in ${context.after}`),
  });
  return app.rateLimit() as unknown as Limiter;
}
