import fp from 'fastify-plugin';
import { PART } from './names.ts';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OUTCOME_UNKNOWN, SuiteError, type ErrorCode, type ErrorData } from '../../bus/index.ts';
import type { Result } from '../../bus/index.ts';
import { statusOf } from '../status.ts';
import { routeMatcher } from '../route-match.ts';
import { listRoutes } from './authority.ts';

/** Every error body (spec, Errors): `{error: {code, message}}`. */
export interface ErrorBody {
  error: ErrorData;
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

/** Minimal reply surface, so typed replies of any route (schema generics) can be passed in. */
interface Replier {
  code(statusCode: number): Replier;
  send(payload?: unknown): unknown;
}

/** Answer catalogue error data with the status of its code. */
export function sendError<R extends Replier>(reply: R, error: ErrorData): R {
  reply.code(statusOf(error.code)).send(errorBody(error.code, error.message));
  return reply;
}

/**
 * Answer a bus `Result`: the value with `okStatus`, or the error data with its code's status.
 * Return it from an async handler (`return sendResult(reply, await bus.request(...))`).
 */
export function sendResult<T, R extends Replier>(reply: R, result: Result<T>, okStatus = 200): R {
  if (result.ok) {
    reply.code(okStatus).send(result.value);
    return reply;
  }
  return sendError(reply, result.error);
}

/** Called after an answer no route matched (404, unparseable URL): metrics and access log. */
export type OnUnmatched = (request: FastifyRequest, reply: FastifyReply) => void;

const GENERIC_INTERNAL = 'internal error';

/**
 * Longest path parameter the router matches (Fastify's default is 100, shorter than the subjects
 * and ids our params schemas accept: an enrolled subject of 256 characters could not be read).
 * Longer ones are answered 400 before routing; schemas then set each parameter's own limit.
 */
export const MAX_PARAM_LENGTH = 1024;

interface MaybeFastifyError {
  code?: unknown;
  statusCode?: unknown;
  validation?: unknown;
  message?: unknown;
}

/**
 * Which client mistakes become `INVALID_REQUEST`, and with what words. Fastify's own messages
 * are kept (schema violations name the field: "body/scope must be array"); the JSON parser's
 * would quote the body back, and the media-type one does not say what is expected.
 */
function requestErrorMessage(error: MaybeFastifyError): string | null {
  if (error.validation !== undefined) return String(error.message);
  const status = typeof error.statusCode === 'number' ? error.statusCode : 0;
  if (status < 400 || status >= 500) return null;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'body is not valid JSON';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported content-type; send application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body is too large';
  }
  if (typeof error.code === 'string' && error.code.startsWith('FST_')) return String(error.message);
  // A client error raised while reading the request (aborted upload and the like).
  return 'request could not be read';
}

function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof SuiteError) {
    if (error.code === 'INTERNAL_ERROR') {
      request.log.error({ err: error }, 'internal error');
      sendError(reply, { code: 'INTERNAL_ERROR', message: GENERIC_INTERNAL });
      return;
    }
    // An expected refusal (fail closed, dependency down): its code and text say all; no stack.
    if (statusOf(error.code) >= 500) request.log.warn({ code: error.code, reason: error.message }, error.code);
    sendError(reply, error.toData());
    return;
  }
  const candidate: MaybeFastifyError = typeof error === 'object' && error !== null ? error : {};
  const message = requestErrorMessage(candidate);
  if (message !== null) {
    sendError(reply, { code: 'INVALID_REQUEST', message });
    return;
  }
  // Unknown failures never leak their text to the caller; the log keeps it.
  request.log.error({ err: error }, 'unhandled error');
  sendError(reply, { code: 'INTERNAL_ERROR', message: GENERIC_INTERNAL });
}

/**
 * Names another listener that serves a path sent to this one ("the scheduler listener (:8082)"), or
 * undefined. Given by whoever knows every listener's routes (cli/edge.ts).
 */
export type ServedElsewhere = (path: string) => string | undefined;

function notFoundMessage(request: FastifyRequest, servedElsewhere: ServedElsewhere | undefined): string {
  const url = request.url.length > 200 ? `${request.url.slice(0, 200)}...` : request.url;
  const elsewhere = servedElsewhere?.(request.url);
  return elsewhere === undefined ? `no route ${request.method} ${url}` : `no route ${request.method} ${url} on this listener: it is served by ${elsewhere}`;
}

/**
 * A 503 whose write may have been carried out (no answer in time, storage lost mid-commit) says how
 * to retry safely: with the request's own `Idempotency-Key`, carried out at most once; without one,
 * that a retry may do it twice (docs/ERRORS.md, "Outcome unknown"). Only such answers are parsed.
 */
function retryAdvice(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 503 || typeof payload !== 'string' || !payload.includes(OUTCOME_UNKNOWN)) return payload;
  let body: ErrorBody;
  try {
    body = JSON.parse(payload) as ErrorBody;
  } catch {
    return payload;
  }
  if (typeof body.error?.message !== 'string') return payload;
  const key = request.headers['idempotency-key'];
  const advice =
    typeof key === 'string' && key !== ''
      ? `retry with the same Idempotency-Key: ${JSON.stringify(key.slice(0, 200))}`
      : 'a retry without an Idempotency-Key may carry it out twice';
  return JSON.stringify(errorBody(body.error.code, `${body.error.message}; ${advice}`));
}

/**
 * The methods this listener serves a path under (issue 36, item 5), for a 405 with `Allow` when a
 * request's method is not one of them. Built from the route table on the first unmatched request,
 * when every route is registered; `HEAD` goes with every `GET`, as Fastify serves it.
 */
function methodsServing(app: FastifyInstance): (path: string) => string[] {
  let byMethod: Array<[string, (path: string) => boolean]> | undefined;
  return (path) => {
    if (byMethod === undefined) {
      const urls = new Map<string, string[]>();
      for (const r of listRoutes(app)) urls.set(r.method, [...(urls.get(r.method) ?? []), r.url]);
      if (urls.has('GET')) urls.set('HEAD', [...(urls.get('HEAD') ?? []), ...(urls.get('GET') ?? [])]);
      byMethod = [...urls].map(([method, patterns]) => [method, routeMatcher(patterns)]);
    }
    return byMethod
      .filter(([, matches]) => matches(path))
      .map(([method]) => method)
      .sort();
  };
}

function installErrors(app: FastifyInstance, onUnmatched: OnUnmatched, servedElsewhere?: ServedElsewhere): void {
  app.setErrorHandler(handleError);
  app.addHook('onSend', async (request, reply, payload) => retryAdvice(request, reply, payload));
  const allowed = methodsServing(app);
  app.setNotFoundHandler((request, reply) => {
    // A path another listener serves is named there first (a POST sent to the dashboard's port,
    // whose pages answer GET, is still a request for the token listener).
    const methods = servedElsewhere?.(request.url) === undefined ? allowed(request.url) : [];
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      const url = request.url.length > 200 ? `${request.url.slice(0, 200)}...` : request.url;
      sendError(reply, { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not served for ${url}; send ${methods.join(' or ')}` });
    } else {
      sendError(reply, { code: 'NOT_FOUND', message: notFoundMessage(request, servedElsewhere) });
    }
    onUnmatched(request, reply);
  });
}

export interface ErrorsOptions {
  onUnmatched: OnUnmatched;
  servedElsewhere?: ServedElsewhere;
}

/**
 * The error shape on every answer: the error handler, the 404 and 405, retry advice. Routes take the
 * error handler in force when they are registered, so every part that adds a route depends on this one.
 */
export const errorsPlugin = fp(async (app: FastifyInstance, o: ErrorsOptions) => installErrors(app, o.onUnmatched, o.servedElsewhere), {
  name: PART.errors,
  dependencies: [PART.tracing],
});

/**
 * Errors Fastify raises before routing (a URL it cannot decode), for the `frameworkErrors` option:
 * same shape, and the request id echoed as on every other answer.
 */
export function frameworkErrorHandler(onUnmatched: OnUnmatched) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    if (error.code === 'FST_ERR_BAD_URL') {
      sendError(reply, { code: 'INVALID_REQUEST', message: 'URL could not be decoded' });
    } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      // Fastify's own words quote the whole path back; these name the limit (app.ts, maxParamLength).
      sendError(reply, { code: 'INVALID_REQUEST', message: `a path parameter is longer than ${MAX_PARAM_LENGTH} characters` });
    } else {
      request.log.error({ err: error }, 'framework error');
      sendError(reply, { code: 'INTERNAL_ERROR', message: GENERIC_INTERNAL });
    }
    onUnmatched(request, reply);
  };
}

/** Words for what Node's HTTP parser rejects; all are `INVALID_REQUEST`, the one status table holds. */
function clientErrorMessage(code: string | undefined): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request timed out';
  if (code === 'HPE_HEADER_OVERFLOW') return 'request headers too large';
  return 'malformed HTTP request';
}

/**
 * Requests Node's HTTP parser rejects never reach Fastify; answer them in the error shape too,
 * unless the socket can no longer be written.
 */
export function clientErrorHandler(error: Error & { code?: string; bytesParsed?: number }, socket: Socket): void {
  // A socket that timed out before sending a byte (opened and left idle, or kept alive and never
  // reused) gets no answer: there is no request to answer.
  const silent = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (error.bytesParsed ?? 0) === 0 && socket.bytesRead === 0;
  if (error.code === 'ECONNRESET' || !socket.writable || silent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody('INVALID_REQUEST', clientErrorMessage(error.code)));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
