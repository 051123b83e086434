import { SuiteError, subjects, type Caller } from '../../bus/index.ts';
import { gate, scoreOf, EVENT_WEIGHTS, BREACH_WEIGHTS, SCORE_METHOD, BASELINE, SCORE_MIN, SCORE_MAX, type EventKind } from '../../core/trust/index.ts';
import type { Static } from 'typebox';
import type { TrustDeps } from './context.ts';
import { tenantColumn, tenantOf } from './context.ts';
import {
  agentsPage,
  appealsOf,
  auditEntryExists,
  decideAppeal,
  eventsOf,
  getAppeal,
  getEvent,
  insertAppeal,
  insertEvent,
  subjectType,
  upheldEventIds,
} from './queries/events.ts';
import { breachesOfAgent, breachesOfParty } from './queries/contracts.ts';
import type { req } from './schemas.ts';

/** Trust events, appeals, evidence and scores (docs/TRUST.md, "Events", "Scores"). */

const ALL = 100_000;

/** Check the proving artefact an event points at; answers how it was checked. A failed check is 400 naming the field. */
async function checkProof(deps: TrustDeps, proof: Static<typeof req.recordEvent>['proof'], caller: Caller): Promise<string> {
  if ('executionId' in proof) {
    const id = proof.executionId;
    const found = await deps.bus.request(subjects.executionsGet, { id });
    if (!found.ok) {
      if (found.error.code === 'NOT_FOUND') throw new SuiteError('INVALID_REQUEST', `/proof/executionId: no execution ${id} is recorded`);
      throw new SuiteError(found.error.code, found.error.message);
    }
    const recordTenant = (found.value.record.attested as { tenantId?: unknown } | null)?.tenantId ?? null;
    if (caller.tenantId !== undefined && recordTenant !== caller.tenantId) {
      throw new SuiteError('INVALID_REQUEST', `/proof/executionId: no execution ${id} is recorded`);
    }
    const verified = await deps.bus.request(subjects.executionsVerify, { id });
    if (!verified.ok) throw new SuiteError(verified.error.code, verified.error.message);
    if (!verified.value.valid) {
      throw new SuiteError('INVALID_REQUEST', `/proof/executionId: execution ${id} does not verify (${verified.value.reason ?? 'invalid'})`);
    }
    return `execution ${id} exists and verifies (seq ${found.value.record.seq})`;
  }
  if ('auditEntryId' in proof) {
    if (!(await auditEntryExists(deps.storage.pool, proof.auditEntryId, tenantOf(caller)))) {
      throw new SuiteError('INVALID_REQUEST', `/proof/auditEntryId: no audit entry ${proof.auditEntryId} is recorded`);
    }
    return `audit entry ${proof.auditEntryId} exists`;
  }
  return `URL recorded with the SHA-256 claimed for its content (${proof.sha256}); the service does not fetch it`;
}

export async function recordEvent(deps: TrustDeps, r: Static<typeof req.recordEvent>) {
  const proofCheck = await checkProof(deps, r.proof, r.caller);
  const subjectTypeGiven = r.subjectType ?? 'agent';
  const result = await insertEvent(deps.storage.pool, {
    tenantId: tenantColumn(r.caller),
    subjectId: r.subjectId,
    subjectType: subjectTypeGiven,
    kind: r.kind,
    summary: r.summary ?? null,
    proof: { ...r.proof },
    recordedBy: r.caller.sub,
  });
  if ('conflict' in result) {
    throw new SuiteError('CONFLICT', `subject ${r.subjectId} is recorded as ${result.conflict}, not ${subjectTypeGiven}; a subject has one type`);
  }
  return { ...result.event, proofCheck };
}

async function knownSubject(deps: TrustDeps, subjectId: string, caller: Caller): Promise<string> {
  const type = await subjectType(deps.storage.pool, subjectId, tenantOf(caller));
  if (type === null) throw new SuiteError('NOT_FOUND', `nothing is recorded about subject ${subjectId}`);
  return type;
}

const appealLink = (eventId: string) => `/events/${eventId}/appeal`;

/** A subject's events, oldest first, each with its appeals (facts only). */
async function eventsWithAppeals(deps: TrustDeps, subjectId: string, caller: Caller, limit: number) {
  const events = await eventsOf(deps.storage.pool, subjectId, tenantOf(caller), limit);
  const appeals = await appealsOf(
    deps.storage.pool,
    events.map((e) => e.id),
  );
  return events.map((e) => ({ ...e, appeals: appeals.filter((a) => a.eventId === e.id) }));
}

export async function listEvents(deps: TrustDeps, r: Static<typeof req.subject>) {
  const type = await knownSubject(deps, r.subjectId, r.caller);
  return { subjectId: r.subjectId, subjectType: type, events: await eventsWithAppeals(deps, r.subjectId, r.caller, r.limit) };
}

export async function appeal(deps: TrustDeps, r: Static<typeof req.appeal>) {
  const event = await getEvent(deps.storage.pool, r.eventId, tenantOf(r.caller));
  if (event === null) throw new SuiteError('NOT_FOUND', `no event ${r.eventId}`);
  const upheld = (await appealsOf(deps.storage.pool, [event.id])).find((a) => a.state === 'upheld');
  if (upheld !== undefined) throw new SuiteError('CONFLICT', `event ${event.id} no longer counts: appeal ${upheld.id} was upheld`);
  const created = await insertAppeal(deps.storage.pool, { eventId: r.eventId, tenantId: tenantColumn(r.caller), reason: r.reason, appellant: r.caller.sub });
  if (created === null) throw new SuiteError('CONFLICT', `event ${r.eventId} already has a pending appeal; it is decided before another is made`);
  return created;
}

export async function listAppeals(deps: TrustDeps, r: Static<typeof req.id>) {
  const event = await getEvent(deps.storage.pool, r.id, tenantOf(r.caller));
  if (event === null) throw new SuiteError('NOT_FOUND', `no event ${r.id}`);
  return { eventId: r.id, appeals: await appealsOf(deps.storage.pool, [r.id]) };
}

export async function decide(deps: TrustDeps, r: Static<typeof req.decideAppeal>) {
  const existing = await getAppeal(deps.storage.pool, r.appealId, tenantOf(r.caller));
  if (existing === null) throw new SuiteError('NOT_FOUND', `no appeal ${r.appealId}`);
  const decided = await decideAppeal(deps.storage.pool, { id: r.appealId, decision: r.decision, reason: r.reason, by: r.caller.sub });
  if (decided === null) {
    throw new SuiteError('CONFLICT', `appeal ${r.appealId} is "${existing.state}": decide needs it to be "pending"`);
  }
  const effect =
    r.decision === 'upheld'
      ? `event ${decided.eventId} no longer counts in any score; the event and this appeal stay on record`
      : `event ${decided.eventId} keeps counting; it can be appealed again with new grounds`;
  return { ...decided, effect };
}

/** Recorded facts about any subject, humans included: events, their appeals, breaches of its contracts (as agent or operator). No score, rank or conclusion. */
export async function evidence(deps: TrustDeps, r: Static<typeof req.subject>) {
  // A subject nothing is recorded about has no facts, which is itself the answer (200, empty lists,
  // `subjectType: null`); a 404 read as "no such route" and made callers special-case it (issue 23 part 6).
  const type = await subjectType(deps.storage.pool, r.subjectId, tenantOf(r.caller));
  const events = await eventsWithAppeals(deps, r.subjectId, r.caller, r.limit);
  const breaches = await breachesOfParty(deps.storage.pool, r.subjectId, tenantOf(r.caller), r.limit);
  return {
    subjectId: r.subjectId,
    subjectType: type,
    events,
    breaches,
    notice: 'Recorded facts only: each event names the artefact that proves it; nothing here is a score, rank or conclusion.',
  };
}

async function explain(deps: TrustDeps, subjectId: string, caller: Caller) {
  const events = await eventsOf(deps.storage.pool, subjectId, tenantOf(caller), ALL);
  const upheld = await upheldEventIds(
    deps.storage.pool,
    events.map((e) => e.id),
  );
  const breaches = await breachesOfAgent(deps.storage.pool, subjectId, tenantOf(caller), ALL);
  const explanation = scoreOf(
    events.map((e) => ({ id: e.id, kind: e.kind as EventKind, appealUpheld: upheld.has(e.id) })),
    breaches.map((b) => ({ id: b.id, contractId: b.contractId, party: b.party as 'agent' | 'operator', state: b.state as 'open' | 'remediated' })),
  );
  return {
    subjectId,
    advisory: true,
    ...explanation,
    contributions: explanation.contributions.map((c) => (c.source === 'event' ? { ...c, appeal: appealLink(c.id) } : c)),
    excluded: explanation.excluded.map((c) => (c.source === 'event' ? { ...c, appeal: appealLink(c.id) } : c)),
  };
}

export const METHOD = {
  name: SCORE_METHOD,
  baseline: BASELINE,
  range: [SCORE_MIN, SCORE_MAX],
  eventWeights: EVENT_WEIGHTS,
  breachWeights: BREACH_WEIGHTS,
  documentation: 'docs/TRUST.md#scoring-method',
};

async function agentSubject(deps: TrustDeps, subjectId: string, caller: Caller): Promise<void> {
  const type = await knownSubject(deps, subjectId, caller);
  if (type !== 'agent') {
    throw new SuiteError(
      'NOT_FOUND',
      `no score for ${subjectId}: it is recorded as ${type}, and scores are given for agents only (its evidence is at /evidence/${subjectId})`,
    );
  }
}

export async function score(deps: TrustDeps, r: Static<typeof req.subject>) {
  await agentSubject(deps, r.subjectId, r.caller);
  return { ...(await explain(deps, r.subjectId, r.caller)), methodDetails: METHOD };
}

export async function scores(deps: TrustDeps, r: Static<typeof req.list>) {
  const agents = await agentsPage(deps.storage.pool, tenantOf(r.caller), r.limit);
  const out = [];
  for (const subjectId of agents) {
    const e = await explain(deps, subjectId, r.caller);
    out.push({
      subjectId,
      score: e.score,
      advisory: true,
      contributions: e.contributions.length,
      excluded: e.excluded.length,
      explanation: `/score/${subjectId}`,
    });
  }
  return { scores: out, method: METHOD };
}

export async function check(deps: TrustDeps, r: Static<typeof req.subject>) {
  const { gating, gateThreshold } = deps.settings;
  if (!gating) return { subjectId: r.subjectId, ...gate({ gating, threshold: gateThreshold }, undefined) };
  const type = await subjectType(deps.storage.pool, r.subjectId, tenantOf(r.caller));
  if (type !== null && type !== 'agent') {
    return {
      subjectId: r.subjectId,
      allowed: true,
      gating: 'enabled',
      reason: `${r.subjectId} is recorded as ${type}: scores, and so gating, apply to agents only`,
    };
  }
  const current = type === null ? undefined : (await explain(deps, r.subjectId, r.caller)).score;
  return { subjectId: r.subjectId, ...gate({ gating, threshold: gateThreshold }, current) };
}
