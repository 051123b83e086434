import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditSink } from '../authority.ts';
import type { Guard } from './capability.ts';
import { errorBody } from './errors.ts';
import { carriedDecision } from '../carried-decision.ts';

/**
 * A guarded route's last onSend hook: the answer leaves only once the audit entry of its decision
 * (allow or deny, recorded by the guard) is durable (synced to the process's journal, or committed
 * to the chain), so a storage outage, a SIGTERM during one or a kill -9 cannot lose it
 * (docs/DECISIONS.md, "Audit entries of answered decisions"). When it cannot be made durable in
 * time (no journal, and the trail down):
 * - a read (GET, HEAD) that was going to be served: it is refused instead, 503 SERVICE_UNAVAILABLE
 *   (nothing was done, so nothing is hidden from the trail);
 * - a refusal (4xx, 5xx) did nothing either, and a write's answer says what the route did, already
 *   done (a revocation took effect): both are sent as they are, never turned into something that
 *   did not happen; the entry stays queued, committed when the trail takes it (and waited for at
 *   shutdown), and a write answered so is logged.
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
        // A carried allow (Authority `carry`): durable with its write's commit, or journaled now.
        await carriedDecision(request)?.durable();
        await durable(marks.get(request));
        return payload;
      } catch (err) {
        if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode >= 400) {
          request.log.warn(
            { reason: (err as Error).message, status: reply.statusCode },
            'answered before the audit entry of its decision was durable: the route had acted',
          );
          return payload;
        }
        reply.code(503).header('content-type', 'application/json; charset=utf-8').removeHeader('content-length');
        return JSON.stringify(errorBody('SERVICE_UNAVAILABLE', 'audit trail unavailable; nothing was done; try again shortly'));
      }
    },
  };
}
