import type { ResponseHook } from './http-metrics.ts';

/**
 * One line per answered request: method, route pattern, status, milliseconds; the request id
 * comes from the request's child logger. No headers and no bodies: credentials and execution
 * inputs never reach the log.
 */
export function accessLogger(route: string): ResponseHook {
  return function logAccess(request, reply, done) {
    request.log.info({ method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
    done();
  };
}
