import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
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
 *
 * The call goes to the dispatcher's `dispatch` with a handler that counts nothing but the status
 * and the end, rather than through undici's `request()`: that one builds an AsyncResource, a
 * Readable stream for the body and parses the URL again per call, which cost more CPU than a fast
 * local call itself (docs/PERFORMANCE.md, "Benchmark service"). The bytes on the wire, the
 * connection (kept alive, through the guard's connect), the redirects (the guard's interceptor) and
 * the timeouts are the same.
 */
export function httpTarget(o: HttpTargetOptions): Target {
  // One options object for every call: undici reads it and keeps no reference to mutate.
  const options: Dispatcher.DispatchOptions = {
    origin: o.url.origin,
    path: `${o.url.pathname}${o.url.search}`,
    method: o.method as Dispatcher.HttpMethod,
    headers: o.headers,
    ...(o.body !== undefined ? { body: o.body } : {}),
    // undici's own timeouts (to the headers, then between body chunks) rather than a timer signal
    // per call: AbortSignal.any and AbortSignal.timeout cost more than a fast call.
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
  };
  return {
    shown: shownUrl(o.url),
    call: (signal) =>
      new Promise<CallResult>((resolve) => {
        const start = performance.now();
        if (signal.aborted) {
          resolve(failedCall(start, start, signal.reason));
          return;
        }
        let status = 0;
        let controller: Dispatcher.DispatchController | undefined;
        const onAbort = (): void => controller?.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (result: CallResult): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        };
        const handler: Dispatcher.DispatchHandler = {
          onRequestStart(ctl) {
            controller = ctl;
            if (signal.aborted) ctl.abort(signal.reason);
          },
          // A 1xx comes first and is overwritten by the final status.
          onResponseStart(_ctl, statusCode) {
            status = statusCode;
          },
          // The body is read to its end, each chunk dropped: its bytes are part of the latency, not the result.
          onResponseData() {},
          onResponseEnd() {
            settle({ latencyMs: performance.now() - start, ok: true, status });
          },
          onResponseError(_ctl, err) {
            settle(failedCall(start, performance.now(), err));
          },
        };
        try {
          o.dispatcher.dispatch(options, handler);
        } catch (err) {
          settle(failedCall(start, performance.now(), err));
        }
      }),
  };
}
