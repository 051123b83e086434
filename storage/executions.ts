import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';
import { insertMovingHead, type HeadMove } from './chains.ts';
import { executionCanonicalJson, type Attestation, type Cost, type ExecutionRecord, type Governance } from '../core/chain/index.ts';

/** The execution chain's tables (migration 002): records and the public keys that signed them. */

/**
 * A record as the writer inserts it: the signed record, the unsigned look-up key of a retry, and,
 * when the writer has it, the canonical JSON it hashed (`executionCanonicalJson`).
 */
export type NewExecution = ExecutionRecord & { idempotencyKey: string | null; canonical?: string; audit?: OutboxEntry };

/**
 * The audit entry of the decision that let an append through, committed with its record (migration
 * 013, `audit_outbox`): the record's commit makes both durable. Its JSON as the edge's sink made it.
 */
export interface OutboxEntry {
  id: string;
}

/**
 * The insert of a group commit (storage/chains.ts insertMovingHead): the batch arrives as ONE json
 * parameter, an array of the records' canonical JSON objects (the very bytes that were hashed) with
 * `hash`, `signature` and `idempotencyKey` added, so Node serialises nothing twice and the database
 * parses each record once. json, not jsonb: each object is read once into columns.
 */
const insertStatement = (batch: string) => sql.fragment`
  insert into executions (seq, id, ts, subject, scope, module, action, outcome, input_hash, output_hash, cost,
    governance, attested, prev_hash, hash, key_id, signature, idempotency_key, tenant_id)
  select seq, id, "timestamp", subject, scope, module, action, outcome, "inputHash", "outputHash", cost,
    governance, attested, "prevHash", hash, "keyId", signature, "idempotencyKey", attested ->> 'tenantId'
  from json_to_recordset(${batch}::json) as r(seq int8, id text, "timestamp" text, subject text, scope text[],
    module text, action text, outcome text, "inputHash" text, "outputHash" text, cost jsonb, governance jsonb,
    attested jsonb, "prevHash" text, hash text, "keyId" text, signature text, "idempotencyKey" text)`;

/** Answers the rows inserted: none when `move` could not move the head. */
export async function insertExecutions(db: CommonQueryMethods, records: readonly NewExecution[], move?: HeadMove): Promise<number> {
  if (records.length === 0) return 0;
  const outbox = move ? outboxJson(records) : undefined;
  return insertMovingHead(
    db,
    'suite_insert_executions',
    insertStatement(executionBatchJson(records)),
    move,
    outbox === undefined ? undefined : outboxStatement(outbox),
  );
}

/** The batch's carried audit entries as one json array, or undefined when none carries one. */
function outboxJson(records: readonly NewExecution[]): string | undefined {
  let out: string | undefined;
  for (const r of records) {
    if (r.audit === undefined) continue;
    out = out === undefined ? `[${JSON.stringify(r.audit)}` : `${out},${JSON.stringify(r.audit)}`;
  }
  return out === undefined ? undefined : `${out}]`;
}

/** Written by the records' own statement, and only when the head moved (the records are inserted). */
const outboxStatement = (entries: string) => sql.fragment`outbox as (
    insert into audit_outbox (id, entry)
    select e ->> 'id', e from jsonb_array_elements(${entries}::jsonb) as e
    where exists (select 1 from moved))`;

/** The json parameter of insertStatement. Hash and signature are hex and base64, quoted all the same. */
export function executionBatchJson(records: readonly NewExecution[]): string {
  let out = '[';
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as NewExecution;
    const canonical = r.canonical ?? executionCanonicalJson(r);
    out +=
      `${i === 0 ? '' : ','}{"hash":${JSON.stringify(r.hash)},"signature":${JSON.stringify(r.signature)},` +
      `"idempotencyKey":${JSON.stringify(r.idempotencyKey)},${canonical.slice(1)}`;
  }
  return `${out}]`;
}

// Aliases give rows the record's own field names. `jsonb 'null'` would read back as null too, but
// the writer stores SQL NULL for an absent cost or governance; both hash as JSON null.
export const EXECUTION_COLUMNS = sql.fragment`seq, id, ts as timestamp, subject, scope, module, action, outcome,
  input_hash as "inputHash", output_hash as "outputHash", cost, governance, attested,
  prev_hash as "prevHash", key_id as "keyId", hash, signature`;

/**
 * cost, governance and attested are read as unknown on purpose: a row edited in the database must
 * reach the verifier and be reported ("content does not match its hash"), not fail a row schema.
 */
export const ExecutionRow = rowSchema(
  Type.Object({
    seq: Type.Number(),
    id: Type.String(),
    timestamp: Type.String(),
    subject: Type.String(),
    scope: Type.Array(Type.String()),
    module: Type.String(),
    action: Type.String(),
    outcome: Type.String(),
    inputHash: Type.String(),
    outputHash: Type.Union([Type.String(), Type.Null()]),
    cost: Type.Unknown(),
    governance: Type.Unknown(),
    attested: Type.Unknown(),
    prevHash: Type.String(),
    keyId: Type.String(),
    hash: Type.String(),
    signature: Type.String(),
  }),
);

type Row = { cost: unknown; governance: unknown; attested: unknown } & Omit<ExecutionRecord, 'cost' | 'governance' | 'attested'>;
export const asRecord = (r: Row): ExecutionRecord => r as ExecutionRecord & { cost: Cost | null; governance: Governance | null; attested: Attestation };

export async function getExecution(db: CommonQueryMethods, id: string): Promise<ExecutionRecord | null> {
  const row = await db.maybeOne(sql.type(ExecutionRow)`select ${EXECUTION_COLUMNS} from executions where id = ${id}`);
  return row && asRecord(row);
}

/** The record a retried request with this Idempotency-Key made, if any (unique per token subject). */
export async function findExecutionByIdempotencyKey(db: CommonQueryMethods, sub: string, key: string): Promise<ExecutionRecord | null> {
  const row = await db.maybeOne(sql.type(ExecutionRow)`
    select ${EXECUTION_COLUMNS} from executions where attested ->> 'sub' = ${sub} and idempotency_key = ${key}`);
  return row && asRecord(row);
}

/** One page of the chain in sequence order, for streaming verification. */
export async function executionsPageAfter(db: CommonQueryMethods, afterSeq: number, limit: number): Promise<ExecutionRecord[]> {
  const rows = await db.any(sql.type(ExecutionRow)`
    select ${EXECUTION_COLUMNS} from executions where seq > ${afterSeq} order by seq asc limit ${limit}`);
  return rows.map(asRecord);
}

const HashRow = rowSchema(Type.Object({ hash: Type.String() }));

/** The stored hash of the record at `seq` (a single record's link to its predecessor). */
export async function executionHashAt(db: CommonQueryMethods, seq: number): Promise<string | null> {
  // A record pruned under retention keeps its hash in its tombstone (migration 012): the link still checks.
  return db.maybeOneFirst(sql.type(HashRow)`
    select hash from executions where seq = ${seq} union all select hash from execution_log_pruned where seq = ${seq} limit 1`);
}

export interface TraceKey {
  keyId: string;
  publicKeyPem: string;
  ephemeral: boolean;
  holder: string;
}

/**
 * Publish the key a writer signs with as it starts to lead; a configured key seen before becomes
 * current again. Refuses (returns false) a key id already bound to a different public key.
 */
export async function registerTraceKey(db: CommonQueryMethods, k: TraceKey): Promise<boolean> {
  const row = await db.maybeOne(sql.type(HashRow)`
    insert into trace_keys (key_id, public_key_pem, ephemeral, holder) values (${k.keyId}, ${k.publicKeyPem}, ${k.ephemeral}, ${k.holder})
    on conflict (key_id) do update set holder = excluded.holder, current_since = now()
      where trace_keys.public_key_pem = excluded.public_key_pem and trace_keys.ephemeral = excluded.ephemeral
    returning key_id as hash`);
  return row !== null;
}

/** A published key, and whether records it signed may be trusted now. */
export interface PublishedKey extends TraceKey {
  /** False for an ephemeral key whose writer no longer holds the executions lease (restarted). */
  usable: boolean;
}

const KeyRow = rowSchema(
  Type.Object({
    keyId: Type.String(),
    publicKeyPem: Type.String(),
    ephemeral: Type.Boolean(),
    holder: Type.String(),
    usable: Type.Boolean(),
  }),
);
// The lease row is read in the same statement, so "its holder still leads" is judged at one instant.
const KEY_COLUMNS = sql.fragment`k.key_id as "keyId", k.public_key_pem as "publicKeyPem", k.ephemeral, k.holder,
  (not k.ephemeral or coalesce(l.holder = k.holder and l.expires_at > now(), false)) as usable`;
const LEASE = sql.fragment`left join chain_leases l on l.chain = 'executions'`;

export async function findTraceKeys(db: CommonQueryMethods, keyIds: readonly string[]): Promise<PublishedKey[]> {
  if (keyIds.length === 0) return [];
  const rows = await db.any(sql.type(KeyRow)`
    select ${KEY_COLUMNS} from trace_keys k ${LEASE} where k.key_id = any(${sql.array([...keyIds], 'text')})`);
  return [...rows];
}

/** The key of the writer that most recently started to lead. */
export async function currentTraceKey(db: CommonQueryMethods): Promise<PublishedKey | null> {
  return db.maybeOne(sql.type(KeyRow)`
    select ${KEY_COLUMNS} from trace_keys k ${LEASE} order by k.current_since desc, k.key_id limit 1`);
}
