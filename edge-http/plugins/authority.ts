import type { FastifyInstance } from 'fastify';
import { isValidScope } from '../../core/capability/index.ts';
import type { Authority } from '../authority.ts';

/** A registered route and what it requires: for tests and the route table in docs. */
export interface RouteEntry {
  method: string;
  url: string;
  authority: Authority;
}

/** A route that cannot be served as declared; thrown at registration, so the app does not start. */
export class RouteDeclarationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RouteDeclarationError';
  }
}

const KINDS: ReadonlySet<string> = new Set(['public', 'scope', 'token', 'admin', 'tenant']);

/** The routes of each app, by the root instance `createEdgeApp` returned. */
const tables = new WeakMap<object, RouteEntry[]>();
/** The schemas a route declared (body, querystring, params, headers), by its entry in the table. */
const schemas = new WeakMap<RouteEntry, Readonly<Record<string, unknown>>>();

/** The request schemas of a listed route (tests that drive every route, the hostile-input corpus). */
export function routeSchemas(entry: RouteEntry): Readonly<Record<string, unknown>> {
  return schemas.get(entry) ?? {};
}

export function createRouteTable(app: FastifyInstance): RouteEntry[] {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  return table;
}

/**
 * The authority a route declares, checked and recorded (DESIGN, "The edges": every route declares
 * its authority; spec core rule 8: nothing is unguarded except what is marked public). A missing or
 * malformed declaration throws, so a forgotten `config.authority` stops the app at startup instead
 * of serving an open route. A scope that could never match (a typo such as `audit.read`) is caught
 * here too.
 */
export function declaredAuthority(
  route: { method: string | string[]; url: string; config?: { authority?: Authority }; schema?: object },
  table: RouteEntry[],
): Authority {
  const methods = typeof route.method === 'string' ? [route.method] : route.method;
  const where = `${methods.join(',')} ${route.url}`;
  const authority = route.config?.authority;
  if (authority === undefined) {
    throw new RouteDeclarationError(`route ${where} declares no authority; set config.authority (public, scope, token, admin or tenant)`);
  }
  if (typeof authority !== 'object' || authority === null || !KINDS.has(authority.kind))
    throw new RouteDeclarationError(`route ${where}: unknown authority kind`);
  if (authority.kind === 'scope' && !isValidScope(authority.scope)) {
    throw new RouteDeclarationError(`route ${where}: invalid scope ${JSON.stringify(authority.scope)}`);
  }
  for (const method of methods) {
    const entry = { method, url: route.url, authority };
    table.push(entry);
    if (route.schema !== undefined) schemas.set(entry, route.schema as Record<string, unknown>);
  }
  return authority;
}

/**
 * Every route of the app with its authority, sorted by URL then method. The HEAD twins Fastify
 * adds for GET routes are left out: they are guarded like their GET.
 */
export function listRoutes(app: FastifyInstance): RouteEntry[] {
  const table = tables.get(app);
  if (table === undefined) throw new Error('listRoutes: not an app made by createEdgeApp');
  const gets = new Set(table.filter((r) => r.method === 'GET').map((r) => r.url));
  return table
    .filter((r) => !(r.method === 'HEAD' && gets.has(r.url)))
    .toSorted((a, b) => (a.url === b.url ? a.method.localeCompare(b.method) : a.url.localeCompare(b.url)));
}
