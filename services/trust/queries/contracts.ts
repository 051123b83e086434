import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../../storage/index.ts';
import { BreachSchema, ContractSchema, type Breach, type Contract } from '../schemas.ts';
import { newId, tenantAnd } from './common.ts';

/** Contracts between an agent and its operator, and breaches of them by either party (migration 001). */

const ContractRow = rowSchema(ContractSchema);
const CONTRACT = sql.fragment`id, title, agent_id as "agentId", operator_id as "operatorId", terms, state, state_reason as "stateReason",
  created_by as "createdBy", created_at as "createdAt", state_changed_at as "stateChangedAt"`;
const BreachRow = rowSchema(BreachSchema);
const BREACH = sql.fragment`id, contract_id as "contractId", party, agent_id as "agentId", term, description, state,
  reported_by as "reportedBy", reported_at as "reportedAt", remediated_at as "remediatedAt", remediated_by as "remediatedBy", remediation`;
const TypeRow = rowSchema(Type.Object({ t: Type.String() }));

export interface NewContract {
  tenantId: string | null;
  title: string;
  agentId: string;
  operatorId: string;
  operatorType: string;
  terms: Array<{ id: string; text: string }>;
  createdBy: string;
}

/** The agent becomes a known agent subject; a conflict names the type it is already recorded as. */
export async function insertContract(pool: DatabasePool, c: NewContract): Promise<{ contract: Contract } | { conflict: string }> {
  return pool.transaction(async (tx) => {
    const key = c.tenantId ?? '';
    await tx.query(sql.unsafe`insert into trust_subjects (tenant_key, subject_id, subject_type) values (${key}, ${c.agentId}, 'agent')
      on conflict (tenant_key, subject_id) do nothing`);
    const known = await tx.oneFirst(sql.type(TypeRow)`select subject_type as t from trust_subjects where tenant_key = ${key} and subject_id = ${c.agentId}`);
    if (known !== 'agent') return { conflict: known };
    // The operator becomes a subject too, so that its own breaches are part of its evidence.
    await tx.query(sql.unsafe`insert into trust_subjects (tenant_key, subject_id, subject_type) values (${key}, ${c.operatorId}, ${c.operatorType})
      on conflict (tenant_key, subject_id) do nothing`);
    const contract = await tx.one(sql.type(ContractRow)`
      insert into trust_contracts (id, tenant_id, title, agent_id, operator_id, terms, created_by)
      values (${newId('ctr')}, ${c.tenantId}, ${c.title}, ${c.agentId}, ${c.operatorId}, ${sql.jsonb(c.terms)}, ${c.createdBy})
      returning ${CONTRACT}`);
    return { contract };
  });
}

export async function getContract(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<Contract | null> {
  return db.maybeOne(sql.type(ContractRow)`select ${CONTRACT} from trust_contracts where id = ${id} ${tenantAnd(tenantId)}`);
}

export async function listContracts(db: CommonQueryMethods, tenantId: string | undefined, limit: number): Promise<Contract[]> {
  return [
    ...(await db.any(sql.type(ContractRow)`select ${CONTRACT} from trust_contracts where true ${tenantAnd(tenantId)}
    order by created_at desc, id limit ${limit}`)),
  ];
}

/** Move a contract from `from` to `to`; null when it was no longer in `from`. */
export async function moveContract(db: CommonQueryMethods, m: { id: string; from: string; to: string; reason: string }): Promise<Contract | null> {
  return db.maybeOne(sql.type(ContractRow)`
    update trust_contracts set state = ${m.to}, state_reason = ${m.reason}, state_changed_at = now()
    where id = ${m.id} and state = ${m.from} returning ${CONTRACT}`);
}

export async function insertBreach(
  db: CommonQueryMethods,
  b: {
    contractId: string;
    tenantId: string | null;
    party: string;
    agentId: string;
    term: string | null;
    description: string;
    reportedBy: string;
  },
): Promise<Breach> {
  return db.one(sql.type(BreachRow)`
    insert into trust_breaches (id, contract_id, tenant_id, party, agent_id, term, description, reported_by)
    values (${newId('brc')}, ${b.contractId}, ${b.tenantId}, ${b.party}, ${b.agentId}, ${b.term}, ${b.description}, ${b.reportedBy})
    returning ${BREACH}`);
}

export async function breachesOfContract(db: CommonQueryMethods, contractId: string): Promise<Breach[]> {
  return [...(await db.any(sql.type(BreachRow)`select ${BREACH} from trust_breaches where contract_id = ${contractId} order by reported_at, id`))];
}

/** Every breach of a contract naming this subject as its agent or its operator, by either party. */
export async function breachesOfParty(db: CommonQueryMethods, subjectId: string, tenantId: string | undefined, limit: number): Promise<Breach[]> {
  return [
    ...(await db.any(sql.type(BreachRow)`select ${BREACH} from trust_breaches where contract_id in (
      select id from trust_contracts where (agent_id = ${subjectId} or operator_id = ${subjectId}) ${tenantAnd(tenantId)})
    order by reported_at, id limit ${limit}`)),
  ];
}

/** Every breach of a contract naming this agent, by either party (the operator's are shown, never charged). */
export async function breachesOfAgent(db: CommonQueryMethods, agentId: string, tenantId: string | undefined, limit: number): Promise<Breach[]> {
  return [
    ...(await db.any(sql.type(BreachRow)`select ${BREACH} from trust_breaches where agent_id = ${agentId} ${tenantAnd(tenantId)}
    order by reported_at, id limit ${limit}`)),
  ];
}

export async function getBreach(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<Breach | null> {
  return db.maybeOne(sql.type(BreachRow)`select ${BREACH} from trust_breaches where id = ${id} ${tenantAnd(tenantId)}`);
}

export async function remediateBreach(db: CommonQueryMethods, r: { id: string; by: string; remediation: string }): Promise<Breach | null> {
  return db.maybeOne(sql.type(BreachRow)`
    update trust_breaches set state = 'remediated', remediated_at = now(), remediated_by = ${r.by}, remediation = ${r.remediation}
    where id = ${r.id} and state = 'open' returning ${BREACH}`);
}
