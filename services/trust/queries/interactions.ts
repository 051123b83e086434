import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../../storage/index.ts';
import { AnomalySchema, ChainSchema, InteractionSchema, ObservationSchema, type Anomaly, type Chain, type Interaction, type Observation } from '../schemas.ts';
import { newId, tenantAnd } from './common.ts';

/** Interactions, the chains they form, observers' opinions of them, and the anomalies found (migration 001). */

const InteractionRow = rowSchema(InteractionSchema);
const INTERACTION = sql.fragment`id, chain_id as "chainId", parent_id as "parentId", caller, callee, outcome, execution_id as "executionId",
  depth, path, children, recorded_by as "recordedBy", at`;
const ObservationRow = rowSchema(ObservationSchema);
const OBSERVATION = sql.fragment`id, interaction_id as "interactionId", 'opinion' as kind, observer, outcome, note, observed_at as "observedAt"`;
const ChainRow = rowSchema(ChainSchema);
const CHAIN = sql.fragment`id, started_at as "startedAt", last_activity_at as "lastActivityAt", last_outcome as "lastOutcome", interactions as "interactionCount",
  max_depth as "maxDepth"`;
const AnomalyRow = rowSchema(AnomalySchema);
const ANOMALY = sql.fragment`kind, key, chain_id as "chainId", detail, records, detected_at as "detectedAt", updated_at as "updatedAt"`;
const ChildrenRow = rowSchema(Type.Object({ children: Type.Number() }));
const TenantRow = rowSchema(Type.Object({ tenantId: Type.Union([Type.String(), Type.Null()]) }));

export async function getInteraction(db: CommonQueryMethods, id: string, tenantId: string | undefined, lock = false): Promise<Interaction | null> {
  return db.maybeOne(sql.type(InteractionRow)`select ${INTERACTION} from trust_interactions where id = ${id} ${tenantAnd(tenantId)}
    ${lock ? sql.fragment`for update` : sql.fragment``}`);
}

/** One more child of `id`; answers how many it has now. */
export async function addChild(db: CommonQueryMethods, id: string): Promise<number> {
  return db.oneFirst(sql.type(ChildrenRow)`update trust_interactions set children = children + 1 where id = ${id} returning children`);
}

/** The tenant a chain belongs to (undefined when the chain is new). */
export async function chainTenant(db: CommonQueryMethods, id: string): Promise<string | null | undefined> {
  const row = await db.maybeOne(sql.type(TenantRow)`select tenant_id as "tenantId" from trust_chains where id = ${id} for update`);
  return row === null ? undefined : row.tenantId;
}

export async function insertChain(db: CommonQueryMethods, c: { id: string; tenantId: string | null; outcome: string }): Promise<void> {
  await db.query(sql.unsafe`insert into trust_chains (id, tenant_id, last_outcome) values (${c.id}, ${c.tenantId}, ${c.outcome})`);
}

/** A chain moved: its last activity, last outcome, size and depth. */
export async function touchChain(db: CommonQueryMethods, c: { id: string; outcome: string; depth: number }): Promise<void> {
  await db.query(sql.unsafe`update trust_chains set last_activity_at = now(), last_outcome = ${c.outcome}, interactions = interactions + 1,
    max_depth = greatest(max_depth, ${c.depth}) where id = ${c.id}`);
}

export async function insertInteraction(
  db: CommonQueryMethods,
  i: {
    tenantId: string | null;
    chainId: string;
    parentId: string | null;
    caller: string;
    callee: string;
    outcome: string;
    executionId: string | null;
    depth: number;
    path: string[];
    recordedBy: string;
  },
): Promise<Interaction> {
  return db.one(sql.type(InteractionRow)`
    insert into trust_interactions (id, tenant_id, chain_id, parent_id, caller, callee, outcome, execution_id, depth, path, recorded_by)
    values (${newId('int')}, ${i.tenantId}, ${i.chainId}, ${i.parentId}, ${i.caller}, ${i.callee}, ${i.outcome}, ${i.executionId},
      ${i.depth}, ${sql.array(i.path, 'text')}, ${i.recordedBy})
    returning ${INTERACTION}`);
}

/** Record an anomaly once per key; a later finding of the same key adds its records to the evidence. */
export async function upsertAnomaly(
  db: CommonQueryMethods,
  a: { key: string; kind: string; chainId: string; tenantId: string | null; detail: string; records: string[] },
): Promise<void> {
  await db.query(sql.unsafe`
    insert into trust_anomalies (key, tenant_id, kind, chain_id, records, detail) values (${a.key}, ${a.tenantId}, ${a.kind}, ${a.chainId}, ${sql.jsonb(a.records)}, ${a.detail})
    on conflict (key) do update set
      records = (select jsonb_agg(distinct r) from jsonb_array_elements(trust_anomalies.records || excluded.records) r),
      detail = excluded.detail, updated_at = now()`);
}

export async function insertObservation(
  db: CommonQueryMethods,
  o: { interactionId: string; tenantId: string | null; observer: string; outcome: string; note: string | null },
): Promise<Observation> {
  return db.one(sql.type(ObservationRow)`
    insert into trust_observations (id, interaction_id, tenant_id, observer, outcome, note)
    values (${newId('obs')}, ${o.interactionId}, ${o.tenantId}, ${o.observer}, ${o.outcome}, ${o.note}) returning ${OBSERVATION}`);
}

export async function observationsOf(db: CommonQueryMethods, interactionIds: readonly string[]): Promise<Observation[]> {
  if (interactionIds.length === 0) return [];
  return [
    ...(await db.any(sql.type(ObservationRow)`select ${OBSERVATION} from trust_observations
    where interaction_id = any(${sql.array([...interactionIds], 'text')}) order by observed_at, id`)),
  ];
}

export async function listChains(db: CommonQueryMethods, tenantId: string | undefined, limit: number): Promise<Chain[]> {
  return [
    ...(await db.any(sql.type(ChainRow)`select ${CHAIN} from trust_chains where true ${tenantAnd(tenantId)}
    order by last_activity_at desc, id limit ${limit}`)),
  ];
}

export async function getChain(db: CommonQueryMethods, id: string, tenantId: string | undefined): Promise<Chain | null> {
  return db.maybeOne(sql.type(ChainRow)`select ${CHAIN} from trust_chains where id = ${id} ${tenantAnd(tenantId)}`);
}

export async function interactionsOfChain(db: CommonQueryMethods, chainId: string, limit: number): Promise<Interaction[]> {
  return [
    ...(await db.any(sql.type(InteractionRow)`select ${INTERACTION} from trust_interactions where chain_id = ${chainId}
    order by at, id limit ${limit}`)),
  ];
}

/** Recorded anomalies, most recently updated first (index trust_anomalies_recent). */
export async function listAnomalies(db: CommonQueryMethods, tenantId: string | undefined, limit: number, kind?: string): Promise<Anomaly[]> {
  const only = kind === undefined ? sql.fragment`` : sql.fragment`and kind = ${kind}`;
  return [
    ...(await db.any(sql.type(AnomalyRow)`select ${ANOMALY} from trust_anomalies where true ${only} ${tenantAnd(tenantId)}
    order by updated_at desc, key limit ${limit}`)),
  ];
}

export async function anomaliesOfChain(db: CommonQueryMethods, chainId: string): Promise<Anomaly[]> {
  return [...(await db.any(sql.type(AnomalyRow)`select ${ANOMALY} from trust_anomalies where chain_id = ${chainId} order by detected_at, key`))];
}

/** Chains whose newest interaction is pending and which did nothing since `before` (partial index trust_chains_pending). */
export async function stalledChains(db: CommonQueryMethods, tenantId: string | undefined, before: Date, limit: number): Promise<Chain[]> {
  return [
    ...(await db.any(sql.type(ChainRow)`select ${CHAIN} from trust_chains
    where last_outcome = 'pending' and last_activity_at < ${before.toISOString()} ${tenantAnd(tenantId)}
    order by last_activity_at, id limit ${limit}`)),
  ];
}

/** The newest interaction of each chain given (the one a stall waits on), by id only. */
export async function lastInteractions(db: CommonQueryMethods, chainIds: readonly string[]): Promise<Array<{ chainId: string; id: string }>> {
  if (chainIds.length === 0) return [];
  return [
    ...(await db.any(sql.type(rowSchema(Type.Object({ chainId: Type.String(), id: Type.String() })))`
    select distinct on (chain_id) chain_id as "chainId", id from trust_interactions
    where chain_id = any(${sql.array([...chainIds], 'text')}) order by chain_id, at desc, id desc`)),
  ];
}

/**
 * An execution appended to the chain that interactions named: link it to them and count it as
 * progress of their chains. Answers how many interactions it linked.
 */
export async function linkExecution(db: CommonQueryMethods, executionId: string, outcome: string): Promise<number> {
  return linkExecutions(db, [{ id: executionId, outcome }]);
}

/**
 * Link executions to the interactions that named them, in one statement for a batch of appended
 * executions (most name none: one statement per append cost the chain a database round trip each).
 */
export async function linkExecutions(db: CommonQueryMethods, executions: ReadonlyArray<{ id: string; outcome: string }>): Promise<number> {
  if (executions.length === 0) return 0;
  const ids = sql.array(
    executions.map((e) => e.id),
    'text',
  );
  const outcomes = sql.array(
    executions.map((e) => e.outcome),
    'text',
  );
  const linked = await db.any(sql.type(rowSchema(Type.Object({ chainId: Type.String() })))`
    with appended as (select * from unnest(${ids}, ${outcomes}) as a(execution_id, outcome)),
    linked as (
      insert into trust_execution_links (execution_id, interaction_id, outcome)
      select a.execution_id, i.id, a.outcome from appended a join trust_interactions i on i.execution_id = a.execution_id
      on conflict do nothing returning interaction_id)
    select i.chain_id as "chainId" from linked l join trust_interactions i on i.id = l.interaction_id`);
  const chains = [...new Set(linked.map((r) => r.chainId))];
  if (chains.length > 0) {
    await db.query(sql.unsafe`update trust_chains set last_activity_at = now() where id = any(${sql.array(chains, 'text')})`);
  }
  return linked.length;
}

export async function linksOf(
  db: CommonQueryMethods,
  interactionIds: readonly string[],
): Promise<Array<{ executionId: string; interactionId: string; outcome: string; seenAt: string }>> {
  if (interactionIds.length === 0) return [];
  return [
    ...(await db.any(sql.type(
      rowSchema(Type.Object({ executionId: Type.String(), interactionId: Type.String(), outcome: Type.String(), seenAt: Type.String() })),
    )`
    select execution_id as "executionId", interaction_id as "interactionId", outcome, seen_at as "seenAt" from trust_execution_links
    where interaction_id = any(${sql.array([...interactionIds], 'text')}) order by seen_at`)),
  ];
}
