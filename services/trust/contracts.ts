import type { Static } from 'typebox';
import { SuiteError } from '../../bus/index.ts';
import { allowed, MACHINES } from '../../core/trust/index.ts';
import type { TrustDeps } from './context.ts';
import { tenantColumn, tenantOf } from './context.ts';
import { breachesOfContract, getBreach, getContract, insertBreach, insertContract, listContracts, moveContract, remediateBreach } from './queries/contracts.ts';
import type { req } from './schemas.ts';

/** Reciprocal contracts between an agent and its operator (docs/TRUST.md, "Contracts"). */

export async function create(deps: TrustDeps, r: Static<typeof req.createContract>) {
  const ids = r.terms.map((t) => t.id);
  const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dup.length > 0) throw new SuiteError('INVALID_REQUEST', `/terms: term ids must be unique; repeated: ${[...new Set(dup)].join(', ')}`);
  if (r.agentId === r.operatorId) throw new SuiteError('INVALID_REQUEST', '/operatorId: the operator and the agent are two parties');
  const result = await insertContract(deps.storage.pool, {
    tenantId: tenantColumn(r.caller),
    title: r.title,
    agentId: r.agentId,
    operatorId: r.operatorId,
    operatorType: r.operatorType ?? 'organisation',
    terms: r.terms.map((t) => ({ ...t })),
    createdBy: r.caller.sub,
  });
  if ('conflict' in result) throw new SuiteError('CONFLICT', `/agentId: ${r.agentId} is recorded as ${result.conflict}, not an agent`);
  return result.contract;
}

async function found(deps: TrustDeps, id: string, caller: Static<typeof req.id>['caller']) {
  const contract = await getContract(deps.storage.pool, id, tenantOf(caller));
  if (contract === null) throw new SuiteError('NOT_FOUND', `no contract ${id}`);
  return contract;
}

export async function list(deps: TrustDeps, r: Static<typeof req.list>) {
  return { contracts: await listContracts(deps.storage.pool, tenantOf(r.caller), r.limit) };
}

export async function getOne(deps: TrustDeps, r: Static<typeof req.id>) {
  const contract = await found(deps, r.id, r.caller);
  return { ...contract, breaches: await breachesOfContract(deps.storage.pool, contract.id) };
}

export async function breach(deps: TrustDeps, r: Static<typeof req.breach>) {
  const contract = await found(deps, r.contractId, r.caller);
  const move = allowed('contract', 'breach', contract.state, contract.id);
  if (!move.ok) throw new SuiteError('CONFLICT', move.message);
  const terms = contract.terms as Array<{ id: string }>;
  if (r.term !== undefined && !terms.some((t) => t.id === r.term)) {
    throw new SuiteError('INVALID_REQUEST', `/term: contract ${contract.id} has no term "${r.term}" (its terms: ${terms.map((t) => t.id).join(', ')})`);
  }
  return insertBreach(deps.storage.pool, {
    contractId: contract.id,
    tenantId: tenantColumn(r.caller),
    party: r.party,
    agentId: contract.agentId,
    term: r.term ?? null,
    description: r.description,
    reportedBy: r.caller.sub,
  });
}

/** Failures counted by whose fault they are, and the contract's state. */
export async function health(deps: TrustDeps, r: Static<typeof req.id>) {
  const contract = await found(deps, r.id, r.caller);
  const breaches = await breachesOfContract(deps.storage.pool, contract.id);
  const count = (party: string) => {
    const of = breaches.filter((b) => b.party === party);
    return { total: of.length, open: of.filter((b) => b.state === 'open').length, remediated: of.filter((b) => b.state === 'remediated').length };
  };
  const agent = count('agent');
  const operator = count('operator');
  const fault =
    agent.total === 0 && operator.total === 0
      ? 'no failures recorded'
      : `${agent.total} failure(s) by the agent ${contract.agentId}, ${operator.total} by the operator ${contract.operatorId}; the operator's are never charged to the agent's score`;
  return {
    contractId: contract.id,
    state: contract.state,
    agentId: contract.agentId,
    operatorId: contract.operatorId,
    failures: { agent, operator, total: breaches.length },
    summary: fault,
  };
}

export async function move(deps: TrustDeps, r: Static<typeof req.contractMove>) {
  const contract = await found(deps, r.contractId, r.caller);
  const check = allowed('contract', r.action, contract.state, contract.id);
  if (!check.ok) throw new SuiteError('CONFLICT', check.message);
  const to = r.action === 'suspend' ? MACHINES.contract.suspend.to : MACHINES.contract.reinstate.to;
  const moved = await moveContract(deps.storage.pool, { id: contract.id, from: contract.state, to, reason: r.reason });
  if (moved === null)
    throw new SuiteError('CONFLICT', `contract ${contract.id} moved while it was ${r.action === 'suspend' ? 'suspended' : 'reinstated'}; read it again`);
  return moved;
}

export async function remediate(deps: TrustDeps, r: Static<typeof req.remediate>) {
  const existing = await getBreach(deps.storage.pool, r.breachId, tenantOf(r.caller));
  if (existing === null) throw new SuiteError('NOT_FOUND', `no breach ${r.breachId}`);
  const check = allowed('breach', 'remediate', existing.state, existing.id);
  if (!check.ok) throw new SuiteError('CONFLICT', check.message);
  const done = await remediateBreach(deps.storage.pool, { id: existing.id, by: r.caller.sub, remediation: r.remediation });
  if (done === null) throw new SuiteError('CONFLICT', `breach ${existing.id} was remediated by someone else first`);
  return done;
}
