import { Type } from 'typebox';
import { requestSubject } from '../../bus/index.ts';
import {
  AppealSchema,
  ArbitrateBody,
  BreachSchema,
  ContractSchema,
  DisputeSchema,
  EventWithCheck,
  InteractionSchema,
  ObservationSchema,
  VerifyBody,
  req,
} from './schemas.ts';

/**
 * The trust service's subjects, served by the trust arbiter (queue `trust`). Composite answers
 * (scores, evidence, health, chains) are documented in docs/TRUST.md; their parts are the record
 * schemas of schemas.ts.
 */
const Composite = Type.Unknown();

export const trustSubjects = {
  recordEvent: requestSubject('suite.trust.record-event', req.recordEvent, EventWithCheck),
  eventsOf: requestSubject('suite.trust.events-of', req.subject, Composite),
  appeal: requestSubject('suite.trust.appeal', req.appeal, AppealSchema),
  appealsOf: requestSubject('suite.trust.appeals-of', req.id, Composite),
  decideAppeal: requestSubject('suite.trust.decide-appeal', req.decideAppeal, Composite),
  evidence: requestSubject('suite.trust.evidence', req.subject, Composite),
  score: requestSubject('suite.trust.score', req.subject, Composite),
  scores: requestSubject('suite.trust.scores', req.list, Composite),
  check: requestSubject('suite.trust.check', req.subject, Composite),

  verify: requestSubject('suite.trust.verify', VerifyBody, Composite),
  arbitrate: requestSubject('suite.trust.arbitrate', ArbitrateBody, Composite),
  createDispute: requestSubject('suite.trust.create-dispute', req.createDispute, DisputeSchema),
  listDisputes: requestSubject('suite.trust.list-disputes', Type.Object({ ...req.list.properties, pending: Type.Boolean() }), Composite),
  getDispute: requestSubject('suite.trust.get-dispute', req.id, DisputeSchema),
  arbitrateDispute: requestSubject('suite.trust.arbitrate-dispute', req.arbitrateDispute, DisputeSchema),
  decideDispute: requestSubject('suite.trust.decide-dispute', req.decideDispute, DisputeSchema),

  createContract: requestSubject('suite.trust.create-contract', req.createContract, ContractSchema),
  listContracts: requestSubject('suite.trust.list-contracts', req.list, Composite),
  getContract: requestSubject('suite.trust.get-contract', req.id, Composite),
  breach: requestSubject('suite.trust.breach', req.breach, BreachSchema),
  health: requestSubject('suite.trust.health', req.id, Composite),
  moveContract: requestSubject('suite.trust.move-contract', req.contractMove, ContractSchema),
  remediate: requestSubject('suite.trust.remediate', req.remediate, BreachSchema),

  recordInteraction: requestSubject('suite.trust.record-interaction', req.interaction, InteractionSchema),
  observe: requestSubject('suite.trust.observe', req.observe, ObservationSchema),
  listChains: requestSubject('suite.trust.list-chains', req.list, Composite),
  getChain: requestSubject('suite.trust.get-chain', req.id, Composite),
  anomalies: requestSubject('suite.trust.anomalies', req.anomalies, Composite),
} as const;
