import type { FastifyReply, FastifyRequest } from 'fastify';
import { OUTCOME_UNKNOWN } from '../../bus/index.ts';
import { errorBody, retryAdvice } from './errors.ts';

/**
 * A guarded route's last onSend hook: the answer leaves only once the audit entry of its decision
 * (allow or deny, recorded by the guard) is durable in the chain, so no answered decision's entry
 * can be lost to a storage outage, a SIGTERM during one, or a kill -9 (docs/DECISIONS.md, "Audit
 * entries of answered decisions"). When it cannot be made durable in time, the answer becomes 503
 * SERVICE_UNAVAILABLE instead: the route may have acted already, so its outcome is unknown, and the
 * message says how to retry (errors.ts, retryAdvice).
 */
export function durableDecision(durable: () => Promise<void>) {
  return async function awaitDurableDecision(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    try {
      await durable();
      return payload;
    } catch {
      reply.code(503).header('content-type', 'application/json; charset=utf-8').removeHeader('content-length');
      const body = errorBody('SERVICE_UNAVAILABLE', `the audit entry of this decision could not be committed; ${OUTCOME_UNKNOWN}: the request may have been carried out`);
      return retryAdvice(request, reply, JSON.stringify(body));
    }
  };
}
