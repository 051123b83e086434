/** One measured call of a target, whatever its protocol. */
export interface CallResult {
  /** From just before the request is sent to the end of the response (or the failure). */
  latencyMs: number;
  ok: boolean;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Why it failed (docs/BENCHMARK.md, "Errors by kind"). */
  errorKind?: ErrorKind;
  /** LLM providers: time to the first content token, the gaps between tokens, tokens produced. */
  ttftMs?: number;
  gapsMs?: number[];
  outputTokens?: number;
  /** The outbound guard's refusal (it never names the address a name resolved to). */
  refusal?: string;
}

export type ErrorKind =
  | 'refused'
  | 'timeout'
  | 'connection'
  | 'http_4xx'
  | 'http_5xx'
  | 'auth'
  | 'rate_limited'
  | 'overloaded'
  | 'not_found'
  | 'bad_request'
  | 'stream_error'
  | 'protocol'
  | 'aborted';

/** A target ready to be called: one per job, built by its provider. */
export interface Target {
  /** Where the calls go, as shown in results (origin and path, no query). */
  readonly shown: string;
  call(signal: AbortSignal): Promise<CallResult>;
}

/** A failure before or during a call, as a kind (never the target's own words: they may echo secrets). */
export function kindOfError(err: unknown): ErrorKind {
  const e = err as { code?: unknown; name?: unknown; cause?: unknown };
  if (e?.code === 'OUTBOUND_REFUSED') return 'refused';
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return 'timeout';
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return 'aborted';
  if (e?.cause !== undefined && e.cause !== err) {
    const inner = kindOfError(e.cause);
    if (inner !== 'connection') return inner;
  }
  return 'connection';
}

export function kindOfStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_found';
  if (status === 400 || status === 422) return 'bad_request';
  if (status === 503 || status === 529) return 'overloaded';
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}

/** The outbound guard's refusal message of an error (wrapped or not), if it is one. */
export function refusalOf(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === 'OUTBOUND_REFUSED' && typeof e.message === 'string') return e.message;
  }
  return undefined;
}

/** The result of a call that got no response. */
export function failedCall(start: number, now: number, err: unknown): CallResult {
  const refusal = refusalOf(err);
  return { latencyMs: now - start, ok: false, errorKind: refusal !== undefined ? 'refused' : kindOfError(err), ...(refusal !== undefined ? { refusal } : {}) };
}

/** The shown form of a URL: no query, no fragment (they may carry a key). */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
