import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { failedCall, shownUrl, type CallResult, type Target } from './types.ts';

export interface HttpTargetOptions {
  /** Already checked by the outbound guard's URL rules. */
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The outbound guard's dispatcher: every connection it opens is checked and pinned. */
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/**
 * Plain HTTP: each call sends the request and reads the whole response body; its latency ends with
 * the body's last byte. Any status is a response (its latency is measured, its status counted);
 * only a failure to get a response is an error.
 */
export function httpTarget(o: HttpTargetOptions): Target {
  return {
    shown: shownUrl(o.url),
    async call(signal) {
      const start = performance.now();
      try {
        const res = await request(o.url, {
          dispatcher: o.dispatcher, method: o.method as Dispatcher.HttpMethod, headers: o.headers,
          ...(o.body !== undefined ? { body: o.body } : {}),
          // undici's own timeouts (to the headers, then between body chunks) rather than a timer
          // signal per call: AbortSignal.any and AbortSignal.timeout cost more than a fast call.
          signal, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs,
        });
        // Read to the end (the body is part of the latency), keeping nothing.
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
        const result: CallResult = { latencyMs: performance.now() - start, ok: true, status: res.statusCode };
        return result;
      } catch (err) {
        return failedCall(start, performance.now(), err);
      }
    },
  };
}
