import { Type, type TSchema } from 'typebox';
import { ERROR_CODES, ErrorDataSchema } from '../bus/index.ts';
import type { Authority } from './authority.ts';
import { HTTP_STATUS } from './status.ts';

/**
 * The responses of a route, as `schema.response` declares them: the schemas Fastify serializes
 * each answer with (fast-json-stringify: a property the schema does not name is dropped, so a
 * route's schema must name every field it sends) and the OpenAPI documents describe.
 *
 * A route declares its success answers and the errors only it gives (`...errorsOf(404, 409)`);
 * the errors every route of its kind can give are added when it is registered
 * (`describeRouteErrors`, from its authority, its metering, its rate limit and its input schemas).
 */

/** `{error:{code,message}}`: the body of every error answer (spec, "Errors"; docs/ERRORS.md). */
export const ErrorBodySchema = Type.Object({ error: ErrorDataSchema }, { description: 'An error answer (docs/ERRORS.md)' });

/** The codes the one status table (status.ts) maps to a status, so each error answer names what it may carry. */
function codesOf(status: number): string {
  return ERROR_CODES.filter((code) => HTTP_STATUS[code] === status).join(', ');
}

const WORDS: Record<number, string> = {
  400: 'The request is malformed: the body, the query, a path parameter or a header',
  401: 'No credential, or one that is invalid, expired or revoked; or an unknown tenant key',
  402: "The tenant's monthly plan limit is reached",
  403: 'The credential does not grant this route, or its tenant or identity is suspended',
  404: 'No such resource',
  409: 'The resource is not in a state that allows this',
  422: 'The provider refused the request',
  429: 'Too many requests: retry after the `Retry-After` header',
  500: 'An unexpected failure (the log keeps its cause)',
  502: 'The provider could not be reached',
  503: 'A dependency is unavailable (revocation store, bus, storage): retry later',
};

/**
 * One schema object per status, shared by every route: Fastify compiles a serializer per route and
 * status, our compiler (serializer.ts) caches them by schema object, so each is compiled once.
 */
const byStatus = new Map<number, TSchema>();

/** The error answer of `status`: the shared error body, described with the codes it may carry. */
export function errorResponse(status: number): TSchema {
  let schema = byStatus.get(status);
  if (schema === undefined) {
    const codes = codesOf(status);
    if (codes === '') throw new TypeError(`errorResponse: no error code has status ${status} (edge-http/status.ts)`);
    schema = Type.Object({ error: ErrorDataSchema }, { description: `${WORDS[status] ?? 'An error'} (${codes})` });
    byStatus.set(status, schema);
  }
  return schema;
}

/**
 * Route-specific error answers, to spread into `schema.response`: `{ 200: X, ...errorsOf(404) }`.
 * Typed per status, so a handler's `reply.code(404).send(...)` is checked against the error body.
 */
export function errorsOf<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof ErrorBodySchema } {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)])) as { [K in S[number]]: typeof ErrorBodySchema };
}

/** What a route is, as far as the errors it may answer go. */
export interface RouteFacts {
  method: string | string[];
  authority: Authority;
  /** `config.meter`: counted against a tenant's plan. */
  metered: boolean;
  /** Goes through a rate limiter (the edge's, or its own `config.rateLimit`). */
  rateLimited: boolean;
  /** Declares a request schema (body, query, params, headers) or reads a body. */
  validates: boolean;
}

/**
 * The error statuses any route of this kind can answer:
 * - 400 when it validates input (schemas, or a body to parse);
 * - 401, 403 and 503 when guarded (credential refused, not granted or tenant suspended, revocation
 *   store unreachable: fail closed), a tenant-key route alike;
 * - 402 when metered; 429 when rate limited; 500 always.
 */
export function automaticErrorStatuses(route: RouteFacts): number[] {
  const statuses = [500];
  if (route.validates) statuses.push(400);
  if (route.authority.kind !== 'public') statuses.push(401, 403, 503);
  if (route.metered) statuses.push(402);
  if (route.rateLimited) statuses.push(429);
  return statuses.sort((a, b) => a - b);
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

interface RouteLike {
  method: string | string[];
  config?: { authority?: Authority; meter?: unknown; rateLimit?: unknown };
  schema?: Record<string, unknown>;
}

/**
 * Adds to a route's `schema.response` the error answers of `automaticErrorStatuses`, leaving any
 * status the route declares itself as it is (`/ready`'s own 503). Run from an onRoute hook, before
 * Fastify compiles the route's serializers. A route without an authority is left to the route
 * table, which refuses it.
 */
export function describeRouteErrors(route: RouteLike): void {
  const authority = route.config?.authority;
  if (authority === undefined) return;
  const methods = typeof route.method === 'string' ? [route.method] : route.method;
  const schema = route.schema ?? {};
  const facts: RouteFacts = {
    method: route.method,
    authority,
    metered: route.config?.meter !== undefined,
    rateLimited: route.config?.rateLimit !== false,
    validates: REQUEST_PARTS.some((part) => schema[part] !== undefined) || methods.some((m) => BODY_METHODS.has(m)),
  };
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  for (const status of automaticErrorStatuses(facts)) response[status] ??= errorResponse(status);
  // A new schema object: route files may share one between routes of different authorities.
  route.schema = { ...schema, response };
}

/**
 * A success answer: `schema` (often a bus reply, sent as is) with the words the documents give it.
 * A copy, own keys and all, so that the shared schema keeps its own description.
 */
export function answer<T extends TSchema>(schema: T, description: string): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T & { description?: string };
  copy.description = description;
  return copy;
}
