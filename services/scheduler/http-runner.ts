import { createHash } from 'node:crypto';
import { BrokenCircuitError } from 'cockatiel';
import { guardedRequest, OutboundRefusedError, type OutboundGuard } from '../../actors/outbound/index.ts';
import type { HostBreakers } from './breakers.ts';
import type { AttemptResult } from './attempt.ts';

export interface HttpTask {
  readonly url: string;
  readonly method?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: unknown;
}

/** A status the host may answer differently next time: worth a retry, and a failure to the breaker. */
function transient(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

class TransientStatus extends Error {
  readonly status: number;
  readonly bodySha256: string;
  constructor(status: number, bodySha256: string) {
    super(`HTTP ${status}`);
    this.status = status;
    this.bodySha256 = bodySha256;
  }
}

/**
 * One attempt of an HTTP task: through the SSRF guard (undici), aborted at the task's timeout,
 * inside the target host's circuit breaker.
 */
export async function runHttpAttempt(task: HttpTask, timeoutMs: number, deps: { guard: OutboundGuard; breakers: HostBreakers }): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let host: string;
  try {
    host = deps.guard.checkUrl(task.url).host;
  } catch (err) {
    return refused(err as OutboundRefusedError, elapsed());
  }
  const headers: Record<string, string> = { ...task.headers };
  let body: string | undefined;
  if (task.body !== undefined) {
    body = typeof task.body === 'string' ? task.body : JSON.stringify(task.body);
    if (typeof task.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  try {
    const res = await deps.breakers.of(host).execute(async () => {
      const r = await guardedRequest(deps.guard, { url: task.url, method: task.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}), timeoutMs });
      const bodySha256 = createHash('sha256').update(r.body).digest('hex');
      if (transient(r.status)) throw new TransientStatus(r.status, bodySha256);
      return { status: r.status, bodySha256 };
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      outcome: ok ? 'success' : 'failure',
      retryable: false,
      status: res.status,
      durationMs: elapsed(),
      error: ok ? null : `HTTP ${res.status}`,
      output: { status: res.status, bodySha256: res.bodySha256 },
    };
  } catch (err) {
    if (err instanceof TransientStatus) {
      return {
        outcome: 'failure',
        retryable: true,
        status: err.status,
        durationMs: elapsed(),
        error: `HTTP ${err.status}`,
        output: { status: err.status, bodySha256: err.bodySha256 },
      };
    }
    if (err instanceof OutboundRefusedError) return refused(err, elapsed());
    if (err instanceof BrokenCircuitError) {
      return {
        outcome: 'circuit-open',
        retryable: true,
        status: null,
        durationMs: elapsed(),
        error: `circuit open for ${host}: it failed repeatedly`,
        output: { error: 'circuit-open' },
      };
    }
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    const message = timedOut ? `timed out after ${timeoutMs} ms` : networkMessage(err);
    return { outcome: timedOut ? 'timeout' : 'failure', retryable: true, status: null, durationMs: elapsed(), error: message, output: { error: message } };
  }
}

function refused(err: OutboundRefusedError, durationMs: number): AttemptResult {
  return { outcome: 'refused', retryable: false, status: null, durationMs, error: err.message, output: { error: 'refused', reason: err.reason } };
}

/** The error's code (ECONNREFUSED, UND_ERR_SOCKET ...), never a message that may echo a response. */
function networkMessage(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : 'network error';
  return `request failed: ${code}`;
}
