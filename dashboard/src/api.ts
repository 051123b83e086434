import { token } from './auth';

/** Every answer a view can get: a value, "not permitted" (401/403), another error, or no answer at all. */
export type ApiResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'not-permitted'; message: string }
  | { kind: 'error'; status: number; message: string }
  | { kind: 'unreachable'; message: string };

/** A call's method, JSON body, and extra headers (`x-suite-admin-key`, `x-suite-tenant-key`) for this call only. */
export interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Same-origin call with the pasted token; never throws. */
export async function api<T>(path: string, init: CallOptions = {}): Promise<ApiResult<T>> {
  // Extra headers (the admin key or a tenant key a view holds in memory) go first: the token is added after.
  const headers: Record<string, string> = { ...init.headers };
  const t = token();
  if (t) headers.authorization = `Bearer ${t}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  } catch (err) {
    return { kind: 'unreachable', message: `the dashboard edge could not be reached: ${String(err)}` };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { kind: 'error', status: response.status, message: `answer ${response.status} was not JSON` };
  }
  if (response.ok) return { kind: 'ok', value: body as T };
  const e = (body as { error?: { code?: string; message?: string } } | null)?.error;
  const message = `${e?.code ?? response.status}: ${e?.message ?? 'no message'}`;
  if (response.status === 401 || response.status === 403) return { kind: 'not-permitted', message };
  return { kind: 'error', status: response.status, message };
}

/** The listeners the dashboard reads through its same-origin proxy (`/api/<listener>/…`, docs/DASHBOARD.md). */
export type Listener = 'token' | 'scheduler' | 'bench' | 'connector' | 'trust';

/** A call to another listener's route, through the dashboard edge (same origin, no CORS). */
export function apiOf<T>(listener: Listener, path: string, init: CallOptions = {}): Promise<ApiResult<T>> {
  return api<T>(`/api/${listener}${path}`, init);
}
