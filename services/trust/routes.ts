import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { callerOf, errorsOf, operation, sendResult, type EdgeApp, type EdgeRoutes, type Tag } from '../../edge-http/index.ts';
import { OBLIGATIONS } from '../../core/trust/index.ts';
import {
  AppealBody,
  ArbitrateBody,
  BreachBody,
  ContractBody,
  DecideAppealBody,
  DisputeArbitrateBody,
  DisputeBody,
  DisputeDecideBody,
  EventBody,
  IdParam,
  InteractionBody,
  Limit,
  Name,
  ObserveBody,
  ReasonBody,
  RemediateBody,
  VerifyBody,
} from './schemas.ts';
import { trustSubjects as s } from './subjects.ts';
import * as a from './answers.ts';

/** The trust edge (listener 8085; spec, "Trust service"; docs/TRUST.md). Routes talk to the trust arbiter over the bus. */

const scope = (name: string) => ({ authority: { kind: 'scope' as const, scope: name } });
/** A route's operation metadata and answers: `doc(tag, operationId, summary, responses)`. */
const doc = <R extends object>(tag: Tag, operationId: string, summary: string, response: R) => ({ ...operation(tag, operationId, summary), response });
export const ListQuery = Type.Object({ limit: Limit }, { additionalProperties: false });
export const AnomalyQuery = Type.Object(
  {
    limit: Limit,
    kind: Type.Optional(Type.Enum(['cycle', 'runaway-depth', 'runaway-fanout', 'stall', 'disagreement'])),
  },
  { additionalProperties: false },
);
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
    app.get(
      '/obligations',
      {
        config: { authority: { kind: 'public' } },
        schema: doc('trust-events', 'getTrustObligations', 'What the trust service promises and does not do', { 200: a.Obligations }),
      },
      async () => ({ ...OBLIGATIONS, promises: [...OBLIGATIONS.promises], doesNot: [...OBLIGATIONS.doesNot] }),
    );

    // Events and appeals.
    app.post(
      '/events',
      {
        config: scope('trust:write'),
        schema: {
          body: EventBody,
          ...doc('trust-events', 'recordTrustEvent', 'Record a trust event, pointing at the artefact that proves it', {
            201: a.EventRecorded,
            ...errorsOf(409),
          }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.recordEvent, { ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/events/:subjectId',
      {
        config: scope('trust:read'),
        schema: {
          params: SubjectParams,
          querystring: ListQuery,
          ...doc('trust-events', 'listTrustEvents', "A subject's trust events, with their appeals", { 200: a.EventsOfSubject, ...errorsOf(404) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.eventsOf, { subjectId: request.params.subjectId, limit: request.query.limit, caller: callerOf(request) })),
    );
    app.post(
      '/events/:eventId/appeal',
      {
        config: scope('trust:appeal'),
        schema: {
          params: EventParams,
          body: AppealBody,
          ...doc('trust-events', 'appealTrustEvent', 'Appeal a trust event', { 201: a.AppealMade, ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.appeal, { eventId: request.params.eventId, ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/events/:eventId/appeals',
      {
        config: scope('trust:read'),
        schema: {
          params: EventParams,
          ...doc('trust-events', 'listTrustEventAppeals', 'The appeals of a trust event', { 200: a.AppealsOfEvent, ...errorsOf(404) }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.appealsOf, { id: request.params.eventId, caller: callerOf(request) })),
    );
    app.post(
      '/appeals/:appealId/decide',
      {
        config: scope('trust:manage'),
        schema: {
          params: AppealParams,
          body: DecideAppealBody,
          ...doc('trust-events', 'decideAppeal', 'Uphold or reject an appeal', { 200: a.AppealDecided, ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.decideAppeal, { appealId: request.params.appealId, ...request.body, caller: callerOf(request) })),
    );

    // Evidence and scores.
    app.get(
      '/evidence/:subjectId',
      {
        config: scope('trust:read'),
        schema: {
          params: SubjectParams,
          querystring: ListQuery,
          ...doc('trust-scores', 'getEvidence', 'The recorded facts about a subject, any type, humans included', { 200: a.Evidence, ...errorsOf(404) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.evidence, { subjectId: request.params.subjectId, limit: request.query.limit, caller: callerOf(request) })),
    );
    app.get(
      '/score/:subjectId',
      {
        config: scope('trust:read'),
        schema: { params: SubjectParams, ...doc('trust-scores', 'getScore', "An agent's advisory score, explained", { 200: a.Score, ...errorsOf(404) }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.score, { subjectId: request.params.subjectId, limit: 1, caller: callerOf(request) })),
    );
    app.post(
      '/score/:subjectId/check',
      {
        config: scope('trust:read'),
        schema: { params: SubjectParams, ...doc('trust-scores', 'checkScore', "Whether an agent's score allows it through the gate", { 200: a.ScoreCheck }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.check, { subjectId: request.params.subjectId, limit: 1, caller: callerOf(request) })),
    );
    app.get(
      '/scores',
      {
        config: scope('trust:read'),
        schema: { querystring: ListQuery, ...doc('trust-scores', 'listScores', "Every agent's advisory score", { 200: a.Scores }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.scores, { limit: request.query.limit, caller: callerOf(request) })),
    );

    // Grounding and arbitration.
    app.post(
      '/verify',
      {
        config: scope('trust:verify'),
        schema: {
          body: VerifyBody,
          ...doc('arbitration', 'checkGrounding', 'Check an output against the sources it should be grounded in', { 200: a.Grounding }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.verify, request.body)),
    );
    app.post(
      '/arbitrate',
      {
        config: scope('trust:arbitrate'),
        schema: { body: ArbitrateBody, ...doc('arbitration', 'arbitrate', 'Evaluate opinions on a question, storing nothing', { 200: a.Arbitration }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.arbitrate, request.body)),
    );
    app.get(
      '/disputes',
      {
        config: scope('trust:read'),
        schema: { querystring: ListQuery, ...doc('arbitration', 'listDisputes', 'List disputes', { 200: a.DisputeList }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.listDisputes, { limit: request.query.limit, pending: false, caller: callerOf(request) })),
    );
    app.post(
      '/disputes',
      {
        config: scope('trust:arbitrate'),
        schema: { body: DisputeBody, ...doc('arbitration', 'createDispute', 'Open a dispute', { 201: a.Dispute('The dispute, pending') }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.createDispute, { ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/disputes/pending',
      {
        config: scope('trust:read'),
        schema: { querystring: ListQuery, ...doc('arbitration', 'listPendingDisputes', 'List the disputes awaiting a decision', { 200: a.DisputeList }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.listDisputes, { limit: request.query.limit, pending: true, caller: callerOf(request) })),
    );
    app.get(
      '/disputes/:disputeId',
      {
        config: scope('trust:read'),
        schema: { params: DisputeParams, ...doc('arbitration', 'getDispute', 'Read a dispute', { 200: a.Dispute('The dispute'), ...errorsOf(404) }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.getDispute, { id: request.params.disputeId, caller: callerOf(request) })),
    );
    app.post(
      '/disputes/:disputeId/arbitrate',
      {
        config: scope('trust:arbitrate'),
        schema: {
          params: DisputeParams,
          body: DisputeArbitrateBody,
          ...doc('arbitration', 'arbitrateDispute', 'Arbitrate a dispute; an irreversible one escalates to a human', {
            200: a.Dispute('The dispute with its arbitration'),
            ...errorsOf(404, 409),
          }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.arbitrateDispute, { disputeId: request.params.disputeId, ...request.body, caller: callerOf(request) })),
    );
    app.post(
      '/disputes/:disputeId/decide',
      {
        config: scope('trust:manage'),
        schema: {
          params: DisputeParams,
          body: DisputeDecideBody,
          ...doc('arbitration', 'decideDispute', 'Decide a dispute', { 200: a.Dispute('The decided dispute'), ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.decideDispute, { disputeId: request.params.disputeId, ...request.body, caller: callerOf(request) })),
    );

    // Contracts and breaches.
    app.get(
      '/contracts',
      {
        config: scope('trust:read'),
        schema: { querystring: ListQuery, ...doc('contracts', 'listContracts', 'List contracts', { 200: a.ContractList }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.listContracts, { limit: request.query.limit, caller: callerOf(request) })),
    );
    app.post(
      '/contracts',
      {
        config: scope('trust:manage'),
        schema: {
          body: ContractBody,
          ...doc('contracts', 'createContract', 'Make a reciprocal contract between an agent and its operator', {
            201: a.Contract('The contract'),
            ...errorsOf(409),
          }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.createContract, { ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/contracts/:contractId',
      {
        config: scope('trust:read'),
        schema: {
          params: ContractParams,
          ...doc('contracts', 'getContract', 'Read a contract and its breaches', { 200: a.ContractWithBreaches, ...errorsOf(404) }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.getContract, { id: request.params.contractId, caller: callerOf(request) })),
    );
    app.post(
      '/contracts/:contractId/breach',
      {
        config: scope('trust:write'),
        schema: {
          params: ContractParams,
          body: BreachBody,
          ...doc('contracts', 'recordBreach', 'Record a breach by either party', { 201: a.Breach('The breach, open'), ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.breach, { contractId: request.params.contractId, ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/contracts/:contractId/health',
      {
        config: scope('trust:read'),
        schema: {
          params: ContractParams,
          ...doc('contracts', 'getContractHealth', "A contract's failures and whose fault they are", { 200: a.ContractHealth, ...errorsOf(404) }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.health, { id: request.params.contractId, caller: callerOf(request) })),
    );
    for (const action of ['suspend', 'reinstate'] as const) {
      app.post(
        `/contracts/:contractId/${action}`,
        {
          config: scope('trust:manage'),
          schema: {
            params: ContractParams,
            body: ReasonBody,
            ...doc('contracts', `${action}Contract`, action === 'suspend' ? 'Suspend a contract' : 'Reinstate a suspended contract', {
              200: a.Contract(`The contract, ${action === 'suspend' ? 'suspended' : 'reinstated'}`),
              ...errorsOf(404, 409),
            }),
          },
        },
        async (request, reply) =>
          sendResult(reply, await bus.request(s.moveContract, { contractId: request.params.contractId, action, ...request.body, caller: callerOf(request) })),
      );
    }
    app.post(
      '/breaches/:breachId/remediate',
      {
        config: scope('trust:write'),
        schema: {
          params: BreachParams,
          body: RemediateBody,
          ...doc('contracts', 'remediateBreach', "Record a breach's remediation", { 200: a.Breach('The breach, remediated'), ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.remediate, { breachId: request.params.breachId, ...request.body, caller: callerOf(request) })),
    );

    // Interactions, chains and anomalies.
    app.post(
      '/interactions',
      {
        config: scope('trust:write'),
        schema: {
          body: InteractionBody,
          ...doc('interactions', 'recordInteraction', 'Record an interaction between agents', { 201: a.InteractionRecorded, ...errorsOf(404, 409) }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.recordInteraction, { interaction: request.body, caller: callerOf(request) }), 201),
    );
    app.post(
      '/interactions/:interactionId/observe',
      {
        config: scope('trust:write'),
        schema: {
          params: InteractionParams,
          body: ObserveBody,
          ...doc('interactions', 'observeInteraction', "Record an observer's opinion of an interaction", { 201: a.ObservationRecorded, ...errorsOf(404) }),
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(s.observe, { interactionId: request.params.interactionId, ...request.body, caller: callerOf(request) }), 201),
    );
    app.get(
      '/chains',
      {
        config: scope('trust:read'),
        schema: { querystring: ListQuery, ...doc('interactions', 'listChains', 'List interaction chains', { 200: a.ChainList }) },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.listChains, { limit: request.query.limit, caller: callerOf(request) })),
    );
    app.get(
      '/chains/:chainId',
      {
        config: scope('trust:read'),
        schema: {
          params: ChainParams,
          ...doc('interactions', 'getChain', 'Read a chain: its interactions, observations and anomalies', { 200: a.ChainDetail, ...errorsOf(404) }),
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.getChain, { id: request.params.chainId, caller: callerOf(request) })),
    );
    app.get(
      '/anomalies',
      {
        config: scope('trust:read'),
        schema: { querystring: AnomalyQuery, ...doc('interactions', 'listAnomalies', 'Structural anomalies across recent chains', { 200: a.Anomalies }) },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(s.anomalies, {
            limit: request.query.limit,
            ...(request.query.kind !== undefined ? { kind: request.query.kind } : {}),
            caller: callerOf(request),
          }),
        ),
    );
  };
}
