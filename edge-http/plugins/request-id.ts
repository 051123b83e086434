import fp from 'fastify-plugin';
import { PART } from './names.ts';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** An incoming id is kept only when it cannot break a log line or a header: short, plain characters. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Generated ids: a random per-process prefix and a counter. Unique across processes for tracing,
 * without drawing randomness on every request (ids need not be unguessable; they grant nothing).
 */
const PREFIX = randomBytes(9).toString('base64url');
let sequence = 0;

/** Fastify's `genReqId`: the caller's `x-request-id` when sane, so one id spans a call chain; else a new one. */
export function genRequestId(raw: IncomingMessage): string {
  const incoming = raw.headers[REQUEST_ID_HEADER];
  if (typeof incoming === 'string' && SANE_ID.test(incoming)) return incoming;
  sequence += 1;
  return `${PREFIX}-${sequence.toString(36)}`;
}

/** Echo the id on every answer, errors included (Fastify keeps headers set before an error). */
function installRequestIdEcho(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/** The id echoed on every answer; after tracing, whose hooks see the request first. */
export const requestIdPlugin = fp(async (app: FastifyInstance) => installRequestIdEcho(app), { name: PART.requestId, dependencies: [PART.tracing] });
