import type { FastifyReply, FastifyRequest } from 'fastify';
import { OUTCOME_UNKNOWN } from '../../bus/index.ts';
import type { AuditSink } from '../authority.ts';
import type { Guard } from './capability.ts';
import { errorBody, retryAdvice } from './errors.ts';

/**
 * A guarded route's last onSend hook: the answer leaves only once the audit entry of its decision
 * (allow or deny, recorded by the guard) is durable in the chain, so no answered decision's entry
 * can be lost to a storage outage, a SIGTERM during one, or a kill -9 (docs/DECISIONS.md, "Audit
 * entries of answered decisions"). When it cannot be made durable in time, the answer becomes 503
 * SERVICE_UNAVAILABLE instead: the route may have acted already, so its outcome is unknown, and the
 * message says how to retry (errors.ts, retryAdvice).
 */
export function durableDecision(audit: AuditSink) {
  // How many entries the sink held once the request's guard allowed it: its answer waits for those
  // only, not for the decisions of requests that arrived while it ran. A denied request (the guard
  // threw) waits for everything recorded before its answer.
  const marks = new WeakMap<FastifyRequest, number>();
  const durable = (upTo?: number) => (audit.durable as NonNullable<AuditSink['durable']>)(upTo);
  return {
    marking(guard: Guard): Guard {
      if (audit.recorded === undefined) return guard;
      return async function guardAndMark(request) {
        await guard(request);
        marks.set(request, (audit.recorded as () => number)());
      };
    },
    async awaitDurable(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      try {
        await durable(marks.get(request));
        return payload;
      } catch {
        reply.code(503).header('content-type', 'application/json; charset=utf-8').removeHeader('content-length');
        const body = errorBody('SERVICE_UNAVAILABLE', `the audit entry of this decision could not be committed; ${OUTCOME_UNKNOWN}: the request may have been carried out`);
        return retryAdvice(request, reply, JSON.stringify(body));
      }
    },
  };
}
