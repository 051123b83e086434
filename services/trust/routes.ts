import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { callerOf, sendResult, type EdgeApp, type EdgeRoutes } from '../../edge-http/index.ts';
import { OBLIGATIONS } from '../../core/trust/index.ts';
import {
  AppealBody, ArbitrateBody, BreachBody, ContractBody, DecideAppealBody, DisputeArbitrateBody, DisputeBody, DisputeDecideBody, EventBody,
  IdParam, InteractionBody, Limit, Name, ObserveBody, ReasonBody, RemediateBody, VerifyBody,
} from './schemas.ts';
import { trustSubjects as s } from './subjects.ts';

/** The trust edge (listener 8085; spec, "Trust service"; docs/TRUST.md). Routes talk to the trust arbiter over the bus. */

const scope = (name: string) => ({ authority: { kind: 'scope' as const, scope: name } });
export const ListQuery = Type.Object({ limit: Limit }, { additionalProperties: false });
export const AnomalyQuery = Type.Object({
  limit: Limit,
  kind: Type.Optional(Type.Enum(['cycle', 'runaway-depth', 'runaway-fanout', 'stall', 'disagreement'])),
}, { additionalProperties: false });
export const SubjectParams = Type.Object({ subjectId: Name });
const EventParams = Type.Object({ eventId: IdParam });
const AppealParams = Type.Object({ appealId: IdParam });
const DisputeParams = Type.Object({ disputeId: IdParam });
const ContractParams = Type.Object({ contractId: IdParam });
const BreachParams = Type.Object({ breachId: IdParam });
const InteractionParams = Type.Object({ interactionId: IdParam });
const ChainParams = Type.Object({ chainId: Name });

export function trustRoutes(bus: Bus): EdgeRoutes {
  return (app: EdgeApp) => {
    app.get('/obligations', { config: { authority: { kind: 'public' } } }, async () => OBLIGATIONS);

    // Events and appeals.
    app.post('/events', { config: scope('trust:write'), schema: { body: EventBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.recordEvent, { ...request.body, caller: callerOf(request) }), 201));
    app.get('/events/:subjectId', { config: scope('trust:read'), schema: { params: SubjectParams, querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.eventsOf, { subjectId: request.params.subjectId, limit: request.query.limit, caller: callerOf(request) })));
    app.post('/events/:eventId/appeal', { config: scope('trust:appeal'), schema: { params: EventParams, body: AppealBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.appeal, { eventId: request.params.eventId, ...request.body, caller: callerOf(request) }), 201));
    app.get('/events/:eventId/appeals', { config: scope('trust:read'), schema: { params: EventParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.appealsOf, { id: request.params.eventId, caller: callerOf(request) })));
    app.post('/appeals/:appealId/decide', { config: scope('trust:manage'), schema: { params: AppealParams, body: DecideAppealBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.decideAppeal, { appealId: request.params.appealId, ...request.body, caller: callerOf(request) })));

    // Evidence and scores.
    app.get('/evidence/:subjectId', { config: scope('trust:read'), schema: { params: SubjectParams, querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.evidence, { subjectId: request.params.subjectId, limit: request.query.limit, caller: callerOf(request) })));
    app.get('/score/:subjectId', { config: scope('trust:read'), schema: { params: SubjectParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.score, { subjectId: request.params.subjectId, limit: 1, caller: callerOf(request) })));
    app.post('/score/:subjectId/check', { config: scope('trust:read'), schema: { params: SubjectParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.check, { subjectId: request.params.subjectId, limit: 1, caller: callerOf(request) })));
    app.get('/scores', { config: scope('trust:read'), schema: { querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.scores, { limit: request.query.limit, caller: callerOf(request) })));

    // Grounding and arbitration.
    app.post('/verify', { config: scope('trust:verify'), schema: { body: VerifyBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.verify, request.body)));
    app.post('/arbitrate', { config: scope('trust:arbitrate'), schema: { body: ArbitrateBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.arbitrate, request.body)));
    app.get('/disputes', { config: scope('trust:read'), schema: { querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.listDisputes, { limit: request.query.limit, pending: false, caller: callerOf(request) })));
    app.post('/disputes', { config: scope('trust:arbitrate'), schema: { body: DisputeBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.createDispute, { ...request.body, caller: callerOf(request) }), 201));
    app.get('/disputes/pending', { config: scope('trust:read'), schema: { querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.listDisputes, { limit: request.query.limit, pending: true, caller: callerOf(request) })));
    app.get('/disputes/:disputeId', { config: scope('trust:read'), schema: { params: DisputeParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.getDispute, { id: request.params.disputeId, caller: callerOf(request) })));
    app.post('/disputes/:disputeId/arbitrate', { config: scope('trust:arbitrate'), schema: { params: DisputeParams, body: DisputeArbitrateBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.arbitrateDispute, { disputeId: request.params.disputeId, ...request.body, caller: callerOf(request) })));
    app.post('/disputes/:disputeId/decide', { config: scope('trust:manage'), schema: { params: DisputeParams, body: DisputeDecideBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.decideDispute, { disputeId: request.params.disputeId, ...request.body, caller: callerOf(request) })));

    // Contracts and breaches.
    app.get('/contracts', { config: scope('trust:read'), schema: { querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.listContracts, { limit: request.query.limit, caller: callerOf(request) })));
    app.post('/contracts', { config: scope('trust:manage'), schema: { body: ContractBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.createContract, { ...request.body, caller: callerOf(request) }), 201));
    app.get('/contracts/:contractId', { config: scope('trust:read'), schema: { params: ContractParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.getContract, { id: request.params.contractId, caller: callerOf(request) })));
    app.post('/contracts/:contractId/breach', { config: scope('trust:write'), schema: { params: ContractParams, body: BreachBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.breach, { contractId: request.params.contractId, ...request.body, caller: callerOf(request) }), 201));
    app.get('/contracts/:contractId/health', { config: scope('trust:read'), schema: { params: ContractParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.health, { id: request.params.contractId, caller: callerOf(request) })));
    for (const action of ['suspend', 'reinstate'] as const) {
      app.post(`/contracts/:contractId/${action}`, { config: scope('trust:manage'), schema: { params: ContractParams, body: ReasonBody } }, async (request, reply) =>
        sendResult(reply, await bus.request(s.moveContract, { contractId: request.params.contractId, action, ...request.body, caller: callerOf(request) })));
    }
    app.post('/breaches/:breachId/remediate', { config: scope('trust:write'), schema: { params: BreachParams, body: RemediateBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.remediate, { breachId: request.params.breachId, ...request.body, caller: callerOf(request) })));

    // Interactions, chains and anomalies.
    app.post('/interactions', { config: scope('trust:write'), schema: { body: InteractionBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.recordInteraction, { interaction: request.body, caller: callerOf(request) }), 201));
    app.post('/interactions/:interactionId/observe', { config: scope('trust:write'), schema: { params: InteractionParams, body: ObserveBody } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.observe, { interactionId: request.params.interactionId, ...request.body, caller: callerOf(request) }), 201));
    app.get('/chains', { config: scope('trust:read'), schema: { querystring: ListQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.listChains, { limit: request.query.limit, caller: callerOf(request) })));
    app.get('/chains/:chainId', { config: scope('trust:read'), schema: { params: ChainParams } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.getChain, { id: request.params.chainId, caller: callerOf(request) })));
    app.get('/anomalies', { config: scope('trust:read'), schema: { querystring: AnomalyQuery } }, async (request, reply) =>
      sendResult(reply, await bus.request(s.anomalies, { limit: request.query.limit, ...(request.query.kind !== undefined ? { kind: request.query.kind } : {}), caller: callerOf(request) })));
  };
}
