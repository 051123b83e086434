import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

/** Model pins and their attestations (migration 003). One function per query; parameters bound. */

export interface Fingerprint {
  provider: string;
  model: string;
  version: string;
}

export interface ModelPin {
  name: string;
  /** 1 for the first approval; each supersede adds one. */
  baseline: number;
  fingerprint: Fingerprint;
  approvedBy: string;
  basis: string;
  approvedAt: string;
  /** The baseline this one replaced; null for the first. */
  supersedes: number | null;
  /** When a later baseline replaced this one; null while it is current. */
  supersededAt: string | null;
}

export interface Drift {
  field: keyof Fingerprint;
  approved: string;
  observed: string;
}

export interface ModelAttestation {
  id: string;
  name: string;
  baseline: number;
  observed: Fingerprint;
  state: 'MATCHED' | 'FAILED';
  drift: Drift[];
  finding: string;
  attestedAt: string;
  attestedBy: string;
}

const FingerprintSchema = Type.Object({ provider: Type.String(), model: Type.String(), version: Type.String() });
const PinRow = rowSchema(
  Type.Object({
    name: Type.String(),
    baseline: Type.Number(),
    fingerprint: FingerprintSchema,
    approvedBy: Type.String(),
    basis: Type.String(),
    approvedAt: Type.String(),
    supersedes: Type.Union([Type.Number(), Type.Null()]),
    supersededAt: Type.Union([Type.String(), Type.Null()]),
  }),
);
const PIN = sql.fragment`name, baseline,
  json_build_object('provider', provider, 'model', model, 'version', model_version) as fingerprint,
  approved_by as "approvedBy", basis, approved_at as "approvedAt", supersedes, superseded_at as "supersededAt"`;

const AttestationRow = rowSchema(
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    baseline: Type.Number(),
    observed: FingerprintSchema,
    state: Type.Union([Type.Literal('MATCHED'), Type.Literal('FAILED')]),
    drift: Type.Array(
      Type.Object({
        field: Type.Union([Type.Literal('provider'), Type.Literal('model'), Type.Literal('version')]),
        approved: Type.String(),
        observed: Type.String(),
      }),
    ),
    finding: Type.String(),
    attestedAt: Type.String(),
    attestedBy: Type.String(),
  }),
);
const ATTESTATION = sql.fragment`id, name, baseline,
  json_build_object('provider', provider, 'model', model, 'version', model_version) as observed,
  state, drift, finding, attested_at as "attestedAt", attested_by as "attestedBy"`;

const BaselineRow = rowSchema(Type.Object({ baseline: Type.Number() }));
const TotalRow = rowSchema(Type.Object({ total: Type.Number() }));

export interface NewPin {
  name: string;
  fingerprint: Fingerprint;
  approvedBy: string;
  basis: string;
  recordedBy: string;
}

/** Pin baseline 1 of a new name; null when the name exists (replacing is `supersedePin` only). */
export async function insertPin(db: CommonQueryMethods, p: NewPin): Promise<ModelPin | null> {
  return db.maybeOne(sql.type(PinRow)`
    insert into model_pins (name, baseline, provider, model, model_version, approved_by, basis, recorded_by)
    values (${p.name}, 1, ${p.fingerprint.provider}, ${p.fingerprint.model}, ${p.fingerprint.version},
      ${p.approvedBy}, ${p.basis}, ${p.recordedBy})
    on conflict (name, baseline) do nothing
    returning ${PIN}`);
}

/**
 * Close the current baseline and add the next, in one transaction. Null when the name has no pin.
 * Concurrent supersedes of one name queue on the row of baseline 1 (it always exists and never
 * moves), so each reads the baseline its predecessor left current: 2 -> 3 -> 4, never a fork.
 */
export async function supersedePin(pool: DatabasePool, p: NewPin): Promise<ModelPin | null> {
  return pool.transaction(async (tx) => {
    const first = await tx.maybeOne(sql.type(PinRow)`select ${PIN} from model_pins where name = ${p.name} and baseline = 1 for update`);
    if (!first) return null;
    const current = await tx.oneFirst(sql.type(BaselineRow)`
      update model_pins set superseded_at = now() where name = ${p.name} and superseded_at is null returning baseline`);
    return tx.one(sql.type(PinRow)`
      insert into model_pins (name, baseline, provider, model, model_version, approved_by, basis, recorded_by, supersedes)
      values (${p.name}, ${current + 1}, ${p.fingerprint.provider}, ${p.fingerprint.model}, ${p.fingerprint.version},
        ${p.approvedBy}, ${p.basis}, ${p.recordedBy}, ${current})
      returning ${PIN}`);
  });
}

export async function currentPin(db: CommonQueryMethods, name: string): Promise<ModelPin | null> {
  return db.maybeOne(sql.type(PinRow)`select ${PIN} from model_pins where name = ${name} and superseded_at is null`);
}

/** Every baseline of a name, newest first (empty when the name is unknown). */
export async function pinHistory(db: CommonQueryMethods, name: string): Promise<ModelPin[]> {
  return [...(await db.any(sql.type(PinRow)`select ${PIN} from model_pins where name = ${name} order by baseline desc`))];
}

/** The current baseline of every name, by name. */
export async function listCurrentPins(db: CommonQueryMethods): Promise<ModelPin[]> {
  return [...(await db.any(sql.type(PinRow)`select ${PIN} from model_pins where superseded_at is null order by name`))];
}

export async function insertAttestation(db: CommonQueryMethods, a: Omit<ModelAttestation, 'attestedAt'>): Promise<ModelAttestation> {
  return db.one(sql.type(AttestationRow)`
    insert into model_attestations (id, name, baseline, provider, model, model_version, state, drift, finding, attested_by)
    values (${a.id}, ${a.name}, ${a.baseline}, ${a.observed.provider}, ${a.observed.model}, ${a.observed.version},
      ${a.state}, ${sql.jsonb(a.drift.map((d) => ({ ...d })))}, ${a.finding}, ${a.attestedBy})
    returning ${ATTESTATION}`);
}

/** A name's attestations, newest first, and how many there are in all. */
export async function listAttestations(db: CommonQueryMethods, name: string, limit: number): Promise<{ attestations: ModelAttestation[]; total: number }> {
  const rows = await db.any(sql.type(AttestationRow)`
    select ${ATTESTATION} from model_attestations where name = ${name} order by attested_at desc, id desc limit ${limit}`);
  const total = await db.oneFirst(sql.type(TotalRow)`
    select count(*)::int8 as total from model_attestations where name = ${name}`);
  return { attestations: [...rows], total };
}
