import { sql, type CommonQueryMethods } from 'slonik';
import { rowSchema } from '../../../storage/index.ts';
import { DisputeSchema, type Dispute } from '../schemas.ts';
import { newId, tenantAnd } from './common.ts';

/** Disputes: the question, the opinions gathered, the arbitration and the human decision (migration 001). */

const DisputeRow = rowSchema(DisputeSchema);
const DISPUTE = sql.fragment`id, title, question, irreversible, state, opinions, arbitration, decision,
  created_by as "createdBy", created_at as "createdAt", updated_at as "updatedAt"`;

export async function insertDispute(
  db: CommonQueryMethods,
  d: {
    tenantId: string | null;
    title: string;
    question: string;
    irreversible: boolean;
    opinions: unknown[];
    createdBy: string;
  },
): Promise<Dispute> {
  return db.one(sql.type(DisputeRow)`
    insert into trust_disputes (id, tenant_id, title, question, irreversible, opinions, created_by)
    values (${newId('dsp')}, ${d.tenantId}, ${d.title}, ${d.question}, ${d.irreversible}, ${sql.jsonb(d.opinions as never)}, ${d.createdBy})
    returning ${DISPUTE}`);
}

export async function getDispute(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<Dispute | null> {
  return db.maybeOne(sql.type(DisputeRow)`select ${DISPUTE} from trust_disputes where id = ${id} ${tenantAnd(tenantId)}`);
}

/** Newest first; `states` narrows to those states. */
export async function listDisputes(db: CommonQueryMethods, tenantId: string | undefined, limit: number, states?: readonly string[]): Promise<Dispute[]> {
  const only = states === undefined ? sql.fragment`` : sql.fragment`and state = any(${sql.array([...states], 'text')})`;
  return [
    ...(await db.any(sql.type(DisputeRow)`select ${DISPUTE} from trust_disputes where true ${only} ${tenantAnd(tenantId)}
    order by created_at desc, id limit ${limit}`)),
  ];
}

/** Store an arbitration, only if the dispute is still in `from` (null otherwise: someone moved it first). */
export async function storeArbitration(
  db: CommonQueryMethods,
  a: { id: string; from: string; to: string; opinions: unknown[]; arbitration: unknown },
): Promise<Dispute | null> {
  return db.maybeOne(sql.type(DisputeRow)`
    update trust_disputes set state = ${a.to}, opinions = ${sql.jsonb(a.opinions as never)}, arbitration = ${sql.jsonb(a.arbitration as never)}, updated_at = now()
    where id = ${a.id} and state = ${a.from} returning ${DISPUTE}`);
}

export async function storeDecision(db: CommonQueryMethods, d: { id: string; from: readonly string[]; decision: unknown }): Promise<Dispute | null> {
  return db.maybeOne(sql.type(DisputeRow)`
    update trust_disputes set state = 'decided', decision = ${sql.jsonb(d.decision as never)}, updated_at = now()
    where id = ${d.id} and state = any(${sql.array([...d.from], 'text')}) returning ${DISPUTE}`);
}
