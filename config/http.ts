import type { ConfigReader } from './reader.ts';

/** What every HTTP listener applies to a request (edge-http/app.ts). */
export interface HttpConfig {
  readonly accessLog: boolean;
  readonly rateLimit: { readonly max: number; readonly windowMs: number };
  readonly bodyLimitBytes: number;
  /** `SUITE_HTTP_HEADERS_TIMEOUT_MS`, `SUITE_HTTP_REQUEST_TIMEOUT_MS`, `SUITE_HTTP_KEEPALIVE_TIMEOUT_MS`: slow or idle sockets closed (edge-http/app.ts). */
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number };
}

export function httpConfig(read: ConfigReader): HttpConfig {
  const { int, bool } = read;
  return {
    accessLog: bool('SUITE_ACCESS_LOG', false),
    rateLimit: {
      max: int('SUITE_RATE_LIMIT_MAX', 6000, 1, 100_000_000),
      windowMs: int('SUITE_RATE_LIMIT_WINDOW_MS', 1000, 100, 3_600_000),
    },
    bodyLimitBytes: int('SUITE_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    httpTimeouts: httpTimeouts(read),
  };
}

/** The listeners' socket timeouts; Node refuses a headers timeout longer than the request timeout. */
function httpTimeouts({ int, fail }: ConfigReader): HttpConfig['httpTimeouts'] {
  const t = {
    headersMs: int('SUITE_HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestMs: int('SUITE_HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveMs: int('SUITE_HTTP_KEEPALIVE_TIMEOUT_MS', 10_000, 100, 600_000),
  };
  if (t.headersMs > t.requestMs) throw fail('SUITE_HTTP_HEADERS_TIMEOUT_MS', `must not exceed SUITE_HTTP_REQUEST_TIMEOUT_MS (${t.requestMs})`);
  return t;
}
