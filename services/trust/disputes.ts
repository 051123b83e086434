import type { Static } from 'typebox';
import { SuiteError } from '../../bus/index.ts';
import { afterArbitration, allowed, checkGrounding, duplicateParticipants, evaluate, MACHINES, type Opinion } from '../../core/trust/index.ts';
import type { TrustDeps } from './context.ts';
import { tenantColumn, tenantOf } from './context.ts';
import { getDispute, insertDispute, listDisputes, storeArbitration, storeDecision } from './queries/disputes.ts';
import { VERIFY_LIMITS, type ArbitrateBody, type VerifyBody, type req } from './schemas.ts';

/** Grounding checks, arbitration and disputes (docs/TRUST.md). */

export function verify(_deps: TrustDeps, r: Static<typeof VerifyBody>) {
  // Every output sentence is compared with every source sentence: the total bounds the work.
  const total = r.sources.reduce((n, s) => n + s.length, 0);
  if (total > VERIFY_LIMITS.sourcesTotal) {
    return Promise.reject(new SuiteError('INVALID_REQUEST', `/sources: at most ${VERIFY_LIMITS.sourcesTotal} characters in all (got ${total})`));
  }
  return Promise.resolve(checkGrounding(r.output, r.sources));
}

function noDuplicates(opinions: readonly Opinion[], field: string): void {
  const dup = duplicateParticipants(opinions);
  if (dup.length > 0) throw new SuiteError('INVALID_REQUEST', `${field}: each participant gives one opinion; named more than once: ${dup.join(', ')}`);
}

/** Evaluates the opinions and answers; stores nothing (spec, trust rule 6). */
export function arbitrate(_deps: TrustDeps, r: Static<typeof ArbitrateBody>) {
  noDuplicates(r.opinions, '/opinions');
  return Promise.resolve({
    stored: false,
    question: r.question ?? null,
    irreversible: r.irreversible ?? false,
    ...evaluate(r.opinions, r.irreversible ?? false),
  });
}

export async function createDispute(deps: TrustDeps, r: Static<typeof req.createDispute>) {
  const opinions = r.opinions ?? [];
  noDuplicates(opinions, '/opinions');
  return insertDispute(deps.storage.pool, {
    tenantId: tenantColumn(r.caller),
    title: r.title,
    question: r.question,
    irreversible: r.irreversible,
    opinions,
    createdBy: r.caller.sub,
  });
}

async function found(deps: TrustDeps, id: string, caller: Static<typeof req.id>['caller']) {
  const dispute = await getDispute(deps.storage.pool, id, tenantOf(caller));
  if (dispute === null) throw new SuiteError('NOT_FOUND', `no dispute ${id}`);
  return dispute;
}

export async function getOne(deps: TrustDeps, r: Static<typeof req.id>) {
  return found(deps, r.id, r.caller);
}

/** Disputes awaiting someone (`pending`: not yet arbitrated; `escalated`: waiting for a human) or all of them. */
export async function list(deps: TrustDeps, r: Static<typeof req.list> & { pending: boolean }) {
  const states = r.pending ? ['pending', 'escalated'] : undefined;
  return { disputes: await listDisputes(deps.storage.pool, tenantOf(r.caller), r.limit, states) };
}

export async function arbitrateDispute(deps: TrustDeps, r: Static<typeof req.arbitrateDispute>) {
  const dispute = await found(deps, r.disputeId, r.caller);
  const move = allowed('dispute', 'arbitrate', dispute.state, dispute.id);
  if (!move.ok) throw new SuiteError('CONFLICT', move.message);
  const opinions = [...(dispute.opinions as Opinion[]), ...(r.opinions ?? [])];
  noDuplicates(opinions, '/opinions');
  if (opinions.length === 0) throw new SuiteError('INVALID_REQUEST', `/opinions: dispute ${dispute.id} has no opinions to arbitrate; send some`);
  const evaluation = evaluate(opinions, dispute.irreversible);
  const to = afterArbitration(evaluation.escalate);
  const arbitration = { ...evaluation, at: new Date(deps.now()).toISOString(), by: r.caller.sub, result: to };
  const stored = await storeArbitration(deps.storage.pool, { id: dispute.id, from: dispute.state, to, opinions, arbitration });
  if (stored === null) throw new SuiteError('CONFLICT', `dispute ${dispute.id} moved while it was arbitrated; read it again`);
  return stored;
}

export async function decideDispute(deps: TrustDeps, r: Static<typeof req.decideDispute>) {
  const dispute = await found(deps, r.disputeId, r.caller);
  const move = allowed('dispute', 'decide', dispute.state, dispute.id);
  if (!move.ok) throw new SuiteError('CONFLICT', move.message);
  const decision = { outcome: r.outcome, reason: r.reason, decidedBy: r.caller.sub, at: new Date(deps.now()).toISOString(), by: 'human' };
  const stored = await storeDecision(deps.storage.pool, { id: dispute.id, from: MACHINES.dispute.decide.from, decision });
  if (stored === null) throw new SuiteError('CONFLICT', `dispute ${dispute.id} moved while it was decided; read it again`);
  return stored;
}
