import type { paths as TokenPaths } from './generated/token.ts';
import type { paths as SchedulerPaths } from './generated/scheduler.ts';
import type { paths as BenchPaths } from './generated/bench.ts';
import type { paths as ConnectorPaths } from './generated/connector.ts';
import type { paths as TrustPaths } from './generated/trust.ts';
import { InvalidRequestError } from './errors.ts';
import { serviceClient, type ServiceClient, type Transport } from './http.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
import type { CallOptions, CallInit, OperationOf, SuccessBody } from './types.ts';

export type Listener = 'token' | 'scheduler' | 'bench' | 'connector' | 'trust';

/** Where each listener answers when nothing else is said: the embedded default on this machine. */
export const LOCAL_URLS: Readonly<Record<Listener, string>> = Object.freeze({
  token: 'http://127.0.0.1:8081',
  scheduler: 'http://127.0.0.1:8082',
  bench: 'http://127.0.0.1:8083',
  connector: 'http://127.0.0.1:8084',
  trust: 'http://127.0.0.1:8085',
});

export interface SuiteClientOptions {
  /** Each listener's base URL; those left out are the local defaults (LOCAL_URLS). */
  urls?: Partial<Record<Listener, string>>;
  /** A capability token (`Authorization: Bearer`), or a function giving the current one. */
  token?: string | (() => string);
  /** The admin key (`X-Suite-Admin-Key`): operators' calls. */
  adminKey?: string;
  /** A tenant key (`X-Suite-Tenant-Key`): metered calls in a tenant's name. */
  tenantKey?: string;
  /** Time allowed per attempt, in ms (default 10 s). */
  timeoutMs?: number;
  /** Retries of reads, and of writes made idempotent (POST /executions): default 4 attempts. */
  retry?: RetryPolicy;
  /** Default: the global fetch (Node 24, browsers). */
  fetch?: typeof globalThis.fetch;
}

type ExecutionOp = OperationOf<TokenPaths, '/executions', 'post'>;
type MintOp = OperationOf<TokenPaths, '/auth/token', 'post'>;
type RevokeOp = OperationOf<TokenPaths, '/auth/token/revoke', 'post'>;

/** What `POST /auth/token/validate` answers: 200 valid, 400 `{valid:false,error}`; both are answers. */
export type Validation =
  | { valid: true; sub: string; scope: string[]; exp: number; requiredScope?: string; scopeSatisfied?: boolean }
  | { valid: false; error: string; requiredScope?: string };

export interface RecordResult<T> {
  record: T;
  /** True when an earlier attempt (or call) with the same key had already made it (answered 200, not 201). */
  replayed: boolean;
  idempotencyKey: string;
}

export interface SuiteClient {
  readonly token: ServiceClient<TokenPaths>;
  readonly scheduler: ServiceClient<SchedulerPaths>;
  readonly bench: ServiceClient<BenchPaths>;
  readonly connector: ServiceClient<ConnectorPaths>;
  readonly trust: ServiceClient<TrustPaths>;
  readonly tokens: {
    mint(body: CallInit<MintOp>['body'], o?: CallOptions): Promise<SuccessBody<MintOp>>;
    /** Never throws for a token that fails validation: that is `{valid:false}`. */
    validate(token: string, requiredScope?: string, o?: CallOptions): Promise<Validation>;
    revoke(body: CallInit<RevokeOp>['body'], o?: CallOptions): Promise<SuccessBody<RevokeOp>>;
  };
  readonly executions: {
    /**
     * Record an execution. The client sends an `Idempotency-Key` (generated unless given) and, when
     * the outcome is unknown (503, timeout, connection reset), sends the same request again with the
     * same key: the record is made once, never twice, never lost. A 409 means the key was used for
     * another execution.
     */
    record(body: CallInit<ExecutionOp>['body'], o?: CallOptions & { idempotencyKey?: string }): Promise<RecordResult<SuccessBody<ExecutionOp>>>;
  };
}

export function createSuiteClient(options: SuiteClientOptions = {}): SuiteClient {
  const credentials = () => {
    const h: Record<string, string> = {};
    const token = typeof options.token === 'function' ? options.token() : options.token;
    if (token !== undefined) h.authorization = `Bearer ${token}`;
    if (options.adminKey !== undefined) h['x-suite-admin-key'] = options.adminKey;
    if (options.tenantKey !== undefined) h['x-suite-tenant-key'] = options.tenantKey;
    return h;
  };
  const transport = (listener: Listener): Transport => ({
    baseUrl: (options.urls?.[listener] ?? LOCAL_URLS[listener]).replace(/\/+$/, ''),
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    credentials,
    timeoutMs: options.timeoutMs ?? 10_000,
    retry: options.retry ?? DEFAULT_RETRY,
  });
  const retry = options.retry ?? DEFAULT_RETRY;
  const token = serviceClient<TokenPaths>(transport('token'));
  return {
    token,
    scheduler: serviceClient<SchedulerPaths>(transport('scheduler')),
    bench: serviceClient<BenchPaths>(transport('bench')),
    connector: serviceClient<ConnectorPaths>(transport('connector')),
    trust: serviceClient<TrustPaths>(transport('trust')),
    tokens: {
      mint: async (body, o = {}) => (await token.call('post', '/auth/token', { ...o, body })).body as SuccessBody<MintOp>,
      async validate(t, requiredScope, o = {}) {
        try {
          return (await token.call('post', '/auth/token/validate', { ...o, body: { token: t, ...(requiredScope !== undefined ? { requiredScope } : {}) } }))
            .body as Validation;
        } catch (e) {
          const body = e instanceof InvalidRequestError ? e.body : undefined;
          if (isInvalid(body)) return body;
          throw e;
        }
      },
      revoke: async (body, o = {}) => (await token.call('post', '/auth/token/revoke', { ...o, body })).body as SuccessBody<RevokeOp>,
    },
    executions: {
      async record(body, o = {}) {
        const idempotencyKey = o.idempotencyKey ?? crypto.randomUUID();
        const { status, body: record } = await token.call(
          'post',
          '/executions',
          {
            ...o,
            body,
            headers: { ...o.headers, 'idempotency-key': idempotencyKey },
          },
          { retry },
        );
        return { record: record as SuccessBody<ExecutionOp>, replayed: status === 200, idempotencyKey };
      },
    },
  };
}

function isInvalid(body: unknown): body is Validation & { valid: false } {
  return typeof body === 'object' && body !== null && (body as { valid?: unknown }).valid === false;
}
