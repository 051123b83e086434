import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

/** Identities and their challenge nonces (migration 003). One function per query; parameters bound. */

export type IdentityKind = 'agent' | 'human' | 'service';
export type IdentityStatus = 'active' | 'suspended';

export interface Identity {
  subject: string;
  kind: IdentityKind;
  publicKeyPem: string;
  status: IdentityStatus;
  enrolledAt: string;
  reason: string | null;
  suspendedAt: string | null;
}

const IdentityRow = rowSchema(
  Type.Object({
    subject: Type.String(),
    kind: Type.Union([Type.Literal('agent'), Type.Literal('human'), Type.Literal('service')]),
    publicKeyPem: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    enrolledAt: Type.String(),
    reason: Type.Union([Type.String(), Type.Null()]),
    suspendedAt: Type.Union([Type.String(), Type.Null()]),
  }),
);
const COLUMNS = sql.fragment`subject, kind, public_key_pem as "publicKeyPem", status, enrolled_at as "enrolledAt",
  suspension_reason as reason, suspended_at as "suspendedAt"`;

const LockRow = rowSchema(Type.Object({ locked: Type.Number() }));
/**
 * First key of the two-key advisory locks on a subject (the second is hashtext(subject)). The
 * two-int form lives apart from the one-bigint form the migrations lock uses, so they never meet.
 */
const SUBJECT_LOCK_SPACE = 0x1d3e_0001;

/**
 * Serialise issuance against enrolment and suspension of the same subject, for the rest of the
 * transaction. Issuance takes it shared (issuances do not wait for each other), enrolment and
 * suspension exclusive: a suspension therefore waits until every issuance under way has committed
 * its issued_tokens row, and issuances that start later read the new status. A subject that is not
 * enrolled has no row to lock, hence an advisory lock rather than `select ... for share`.
 */
export async function lockSubject(tx: CommonQueryMethods, subject: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const query =
    mode === 'shared'
      ? sql.type(LockRow)`select 1 as locked from pg_advisory_xact_lock_shared(${SUBJECT_LOCK_SPACE}, hashtext(${subject}))`
      : sql.type(LockRow)`select 1 as locked from pg_advisory_xact_lock(${SUBJECT_LOCK_SPACE}, hashtext(${subject}))`;
  await tx.one(query);
}

/** Enrol; null when the subject is already enrolled (any status): replacement is not an upsert. */
export async function insertIdentity(
  db: CommonQueryMethods,
  i: { subject: string; kind: IdentityKind; publicKeyPem: string; enrolledBy: string },
): Promise<Identity | null> {
  return db.maybeOne(sql.type(IdentityRow)`
    insert into identities (subject, kind, public_key_pem, enrolled_by)
    values (${i.subject}, ${i.kind}, ${i.publicKeyPem}, ${i.enrolledBy})
    on conflict (subject) do nothing
    returning ${COLUMNS}`);
}

export async function findIdentity(db: CommonQueryMethods, subject: string): Promise<Identity | null> {
  return db.maybeOne(sql.type(IdentityRow)`select ${COLUMNS} from identities where subject = ${subject}`);
}

/** The identity enrolled with this key (SPKI PEM as node:crypto exports it, so one key has one spelling), if any. */
export async function findIdentityByKey(db: CommonQueryMethods, publicKeyPem: string): Promise<Identity | null> {
  return db.maybeOne(sql.type(IdentityRow)`select ${COLUMNS} from identities where public_key_pem = ${publicKeyPem} order by enrolled_at limit 1`);
}

/**
 * Suspend an active identity. Null when the subject is unknown or already suspended (the caller
 * reads it again to tell which); an earlier suspension keeps its reason and time.
 */
export async function suspendIdentity(db: CommonQueryMethods, s: { subject: string; reason: string; by: string }): Promise<Identity | null> {
  return db.maybeOne(sql.type(IdentityRow)`
    update identities set status = 'suspended', suspension_reason = ${s.reason}, suspended_at = now(), suspended_by = ${s.by}
    where subject = ${s.subject} and status = 'active'
    returning ${COLUMNS}`);
}

const ExpiresRow = rowSchema(Type.Object({ expiresAt: Type.String() }));

/**
 * Store a challenge nonce for an enrolled, active subject, expiring `ttlMs` from now by the
 * database clock (the one that consumes it). Null when the subject is unknown or suspended.
 */
export async function insertNonce(db: CommonQueryMethods, n: { nonce: string; subject: string; ttlMs: number }): Promise<{ expiresAt: string } | null> {
  return db.maybeOne(sql.type(ExpiresRow)`
    insert into identity_nonces (nonce, subject, expires_at)
    select ${n.nonce}, subject, now() + make_interval(secs => ${n.ttlMs / 1000})
    from identities where subject = ${n.subject} and status = 'active'
    returning expires_at as "expiresAt"`);
}

const NonceRow = rowSchema(Type.Object({ nonce: Type.String() }));

/**
 * Use a nonce up: true for exactly one caller, and only while it is unexpired and was issued to
 * this subject. The delete takes the row lock, so concurrent callers (in any process) wait for the
 * first and then find nothing; inside the issuing transaction a rollback restores the nonce.
 */
export async function consumeNonce(db: CommonQueryMethods, n: { nonce: string; subject: string }): Promise<boolean> {
  const row = await db.maybeOne(sql.type(NonceRow)`
    delete from identity_nonces where nonce = ${n.nonce} and subject = ${n.subject} and expires_at > now()
    returning nonce`);
  return row !== null;
}

/** Delete expired nonces; they can no longer be consumed anyway. */
export async function pruneNonces(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.unsafe`delete from identity_nonces where expires_at <= now()`);
  return result.rowCount;
}

const LiveTokenRow = rowSchema(Type.Object({ jti: Type.String(), exp: Type.Number() }));

/** The subject's issued tokens still unexpired at `nowSeconds` (what a suspension revokes). */
export async function liveTokensOf(db: CommonQueryMethods, sub: string, nowSeconds: number): Promise<Array<{ jti: string; exp: number }>> {
  const rows = await db.any(sql.type(LiveTokenRow)`
    select jti, exp from issued_tokens where sub = ${sub} and exp > ${nowSeconds} order by jti`);
  return [...rows];
}
