import type { TestSuite } from './suite.ts';
import type { ServiceName } from '../edge-http/types.ts';

/** Test-only: HTTP calls against a real test suite, with the tenancy headers spelled once. */
export interface Call {
  method?: string;
  body?: unknown;
  /** Send the suite's admin key. */
  admin?: boolean;
  token?: string;
  tenantKey?: string;
  headers?: Record<string, string>;
  service?: ServiceName;
}

export interface Answer {
  status: number;
  // Bodies are asserted on by shape in each test.
  body: any;
  text: string;
  headers: Headers;
}

export async function call(t: TestSuite, path: string, o: Call = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.admin) headers['x-suite-admin-key'] = t.adminKey;
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.tenantKey !== undefined) headers['x-suite-tenant-key'] = o.tenantKey;
  if (o.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(t.url(o.service ?? 'token', path), {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(o.body !== undefined ? { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, text, headers: res.headers };
}

export interface CreatedTenant {
  id: string;
  apiKey: string;
  name: string;
  plan: string;
}

/** A tenant made through `POST /admin/tenants` with the admin key. */
export async function createTenant(t: TestSuite, body: Record<string, unknown> = {}): Promise<CreatedTenant> {
  const a = await call(t, '/admin/tenants', { admin: true, body: { name: 'Tenant under test', ...body } });
  if (a.status !== 201) throw new Error(`creating a tenant failed: ${a.status} ${a.text}`);
  return a.body as CreatedTenant;
}

/** The claims of a JWT, read without verifying (the suite verified it when it answered). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
