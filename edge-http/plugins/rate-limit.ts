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
 * Whose budget a request spends: the bearer token's, else the admin key's, else the client IP's.
 * Credentials are keyed by a SHA-256 prefix, so the limiter's store never holds a usable secret.
 * The key is taken before the capability check (the limiter runs first, to shield the verifier
 * from floods), so a made-up token gets its own budget; it is then refused by the check.
 *
 * Keys are remembered per credential: a caller's token is hashed once, not on every request, and
 * the limiter's store is handed the same key string each time (its lookup then reuses the string's
 * hash). When full the memory is dropped wholesale: a flood of made-up tokens only costs rehashing.
 * Recent tokens thus stay in this process's memory a while, as they do in the verifier's cache.
 */
export function createRateLimitKey(): (request: FastifyRequest) => string {
  const byToken = new Map<string, string>();
  const byAdminKey = new Map<string, string>();
  const byIp = new Map<string, string>();
  const remember = (keys: Map<string, string>, credential: string, make: (credential: string) => string): string => {
    let key = keys.get(credential);
    if (key === undefined) {
      if (keys.size >= KEY_CACHE_SIZE) keys.clear();
      key = make(credential);
      keys.set(credential, key);
    }
    return key;
  };
  return function rateLimitKey(request) {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const token = bearerToken(authorization);
      if (token !== null) return remember(byToken, token, tokenKey);
    }
    const adminKey = request.headers[ADMIN_KEY_HEADER];
    if (typeof adminKey === 'string') return remember(byAdminKey, adminKey, adminKeyKey);
    return remember(byIp, request.ip, ipKey);
  };
}

const tokenKey = (token: string): string => `t:${digest(token)}`;
const adminKeyKey = (adminKey: string): string => `a:${digest(adminKey)}`;
const ipKey = (ip: string): string => `ip:${ip}`;

/**
 * Burst limiting with @fastify/rate-limit (spec: 429 `RATE_LIMITED` with `Retry-After`). Registered
 * with `global: false` and handed back as a hook, so the route pipeline decides where it runs
 * (first, before the capability check) and which routes skip it (the operations routes).
 * A route that sets its own `config.rateLimit` gets the plugin's per-route limiter instead (which
 * then runs after the capability check).
 */
export async function createLimiter(app: FastifyInstance, options: RateLimitOptions): Promise<Limiter> {
  await app.register(rateLimit, {
    global: false,
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: createRateLimitKey(),
    // The informational x-ratelimit-* headers cost CPU and bytes on every answer (measurably, on a
    // small GET); the spec asks only for Retry-After, which a 429 still carries along with them.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (_request, context) =>
      new SuiteError('RATE_LIMITED', `rate limit exceeded, retry in ${context.after}`),
  });
  return app.rateLimit() as unknown as Limiter;
}
