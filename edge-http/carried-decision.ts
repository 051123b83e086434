import type { FastifyRequest } from 'fastify';
import type { CarriedDecision } from './authority.ts';

const carried = new WeakMap<FastifyRequest, CarriedDecision>();

/**
 * The allow of a `carry` route (Authority), kept for its handler: the handler sends `entry` with its
 * write and calls `committedWithWrite()` when the writer says this request's write committed;
 * the answer then waits for `durable()` (plugins/durable-decision.ts), which journals the entry
 * itself when the write did not carry it.
 */
export function carriedDecision(request: FastifyRequest): CarriedDecision | undefined {
  return carried.get(request);
}

export function keepCarried(request: FastifyRequest, decision: CarriedDecision): void {
  carried.set(request, decision);
}
