import { pino, stdSerializers, type DestinationStream, type Level, type Logger } from 'pino';
import { prettyDestination } from './pretty-log.ts';

/**
 * Credentials that must never reach a log line, wherever a request or its headers get logged:
 * a headers object logged on its own (`headers`) or under the usual names of a request or reply.
 * The parents are spelled out rather than matched with a leading `*`: pino applies a leading
 * wildcard to every child logger's bindings, which would cost each request ~2 µs (its child logger
 * carries `reqId`).
 */
const SECRET_HEADERS = ['authorization', 'x-suite-admin-key', 'x-suite-tenant-key', 'cookie', 'set-cookie'];
const HEADER_PARENTS = ['headers', 'req.headers', 'request.headers', 'res.headers', 'reply.headers', 'response.headers'];

/** Bracket notation for every name: pino's path syntax reads `headers.x-suite-admin-key` as arithmetic. */
export const REDACT_PATHS: readonly string[] = Object.freeze(HEADER_PARENTS.flatMap((parent) => SECRET_HEADERS.map((h) => `${parent}["${h}"]`)));

export interface LoggerOptions {
  level: Level | 'silent';
  /** Bound to every line, so one log stream can hold all six listeners. */
  service: string;
  /** Where lines go; stdout when absent. Tests pass a stream to read what was written. */
  destination?: DestinationStream;
  /**
   * `pretty`: each JSON line rewritten for people (observability/pretty-log.ts) before it reaches
   * the destination; `json` (the default): pino's lines as they are.
   */
  format?: 'json' | 'pretty';
  /** ANSI colours in pretty lines. */
  color?: boolean;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  id?: string;
}

/**
 * Serializers keep request and response objects down to a few fields: bodies are never logged
 * (execution inputs and outputs are hashed and dropped, DESIGN "The chain writer"), and headers are
 * not logged at all unless someone logs them explicitly, in which case the redaction above applies.
 */
const serializers = {
  err: stdSerializers.err,
  req: (req: LoggedRequest) => ({ method: req.method, url: req.url, reqId: req.id }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
};

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service, pid: process.pid },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      serializers,
    },
    options.format === 'pretty'
      ? prettyDestination(options.destination ?? process.stdout, { color: options.color ?? false })
      : (options.destination ?? pino.destination({ dest: 1, sync: false })),
  );
}
