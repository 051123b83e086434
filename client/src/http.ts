import { errorOf, TransportError, type SuiteError } from './errors.ts';
import { delayBefore, retryable, sleep, NO_RETRY, type RetryPolicy } from './retry.ts';
import type { CallInit, CallOptions, Method, NeedsInit, OperationOf, PathsWith, SuccessBody } from './types.ts';

/** How every call of a client authenticates and waits (client.ts builds one per listener). */
export interface Transport {
  readonly baseUrl: string;
  readonly fetch: typeof globalThis.fetch;
  readonly credentials: () => Record<string, string>;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
}

type Args<O> = NeedsInit<O> extends true ? [init: CallInit<O>] : [init?: CallInit<O>];

/** One listener's routes, typed from its generated `paths`: `token.post('/auth/token', { body })`. */
export interface ServiceClient<P> {
  get<K extends PathsWith<P, 'get'>>(path: K, ...args: Args<OperationOf<P, K, 'get'>>): Promise<SuccessBody<OperationOf<P, K, 'get'>>>;
  post<K extends PathsWith<P, 'post'>>(path: K, ...args: Args<OperationOf<P, K, 'post'>>): Promise<SuccessBody<OperationOf<P, K, 'post'>>>;
  put<K extends PathsWith<P, 'put'>>(path: K, ...args: Args<OperationOf<P, K, 'put'>>): Promise<SuccessBody<OperationOf<P, K, 'put'>>>;
  patch<K extends PathsWith<P, 'patch'>>(path: K, ...args: Args<OperationOf<P, K, 'patch'>>): Promise<SuccessBody<OperationOf<P, K, 'patch'>>>;
  delete<K extends PathsWith<P, 'delete'>>(path: K, ...args: Args<OperationOf<P, K, 'delete'>>): Promise<SuccessBody<OperationOf<P, K, 'delete'>>>;
  /** The same call, with its HTTP status beside the body (`POST /executions`: 201 made, 200 replayed). */
  call(method: Method, path: string, init?: UntypedInit, o?: { retry?: RetryPolicy }): Promise<{ status: number; body: unknown; headers: Headers }>;
}

export interface UntypedInit extends CallOptions {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

export function serviceClient<P>(t: Transport): ServiceClient<P> {
  // Reads are safe to send again; writes are retried only where the caller made them idempotent.
  const typed = (method: Method) => async (path: string, init?: UntypedInit) =>
    (await call(t, method, path, init ?? {}, method === 'get' ? t.retry : NO_RETRY)).body;
  return {
    get: typed('get'),
    post: typed('post'),
    put: typed('put'),
    patch: typed('patch'),
    delete: typed('delete'),
    call: (method, path, init = {}, o = {}) => call(t, method, path, init, o.retry ?? (method === 'get' ? t.retry : NO_RETRY)),
  } as ServiceClient<P>;
}

async function call(t: Transport, method: Method, path: string, init: UntypedInit, policy: RetryPolicy) {
  const url = urlOf(t.baseUrl, path, init);
  for (let retry = 1; ; retry++) {
    try {
      return await attempt(t, method, url, init);
    } catch (e) {
      const error = e as SuiteError;
      const wait = retryable(error) ? delayBefore(policy, retry, error) : undefined;
      if (wait === undefined) throw error;
      await sleep(wait, init.signal);
    }
  }
}

async function attempt(t: Transport, method: Method, url: string, init: UntypedInit) {
  const timeout = AbortSignal.timeout(init.timeoutMs ?? t.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...t.credentials(), ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await t.fetch(url, { method: method.toUpperCase(), headers, signal, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  } catch (cause) {
    if (init.signal?.aborted) throw init.signal.reason as Error;
    const timedOut = timeout.aborted;
    // Refused before anything was sent: the request cannot have taken effect. Anything else might have.
    const refused = (cause as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
    throw new TransportError(
      timedOut
        ? `no answer from ${method.toUpperCase()} ${url} within the time allowed`
        : `${method.toUpperCase()} ${url} failed: ${String((cause as Error).cause ?? cause)}`,
      { ambiguous: !refused, timedOut, cause },
    );
  }
  const text = await res.text().catch((cause: unknown) => {
    throw new TransportError(`the answer of ${method.toUpperCase()} ${url} was cut off`, { ambiguous: true, timedOut: timeout.aborted, cause });
  });
  const json = (res.headers.get('content-type') ?? '').includes('json');
  const body: unknown = json && text !== '' ? JSON.parse(text) : text === '' ? undefined : text;
  if (!res.ok) throw errorOf(res.status, body, res.headers);
  return { status: res.status, body, headers: res.headers };
}

function urlOf(base: string, template: string, init: UntypedInit): string {
  const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = init.path?.[name];
    if (value === undefined) throw new TypeError(`${template}: the path parameter "${name}" is missing`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(init.query ?? {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) query.append(k, String(item));
  }
  const qs = query.toString();
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}
