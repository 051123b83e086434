import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { Type, type Static } from 'typebox';
import { rowSchema } from '../../storage/index.ts';
import { answerPoll, newUserCode, type PollAnswer } from '../../core/authorization/index.ts';

/**
 * Person-approved authorizations in Postgres (migration 002): an authorization-code request or a
 * device authorization, from the request to the person's decision to the token. Codes and device
 * codes are stored as their SHA-256 only; the request id and CSRF secret are random.
 */
const hashOf = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** How long a person has to decide, and how long an approved code may wait to be redeemed (RFC 9700 §4.5: short). */
export const CONSENT_WINDOW_SECONDS = 600;
export const CODE_LIFETIME_SECONDS = 60;

const AuthorizationRow = Type.Object({
  requestId: Type.String(),
  kind: Type.Union([Type.Literal('code'), Type.Literal('device')]),
  clientId: Type.String(),
  scope: Type.Array(Type.String()),
  resource: Type.Union([Type.String(), Type.Null()]),
  maxLifetimeSeconds: Type.Integer(),
  csrfSecret: Type.String(),
  status: Type.String(),
  expiresAt: Type.Number(),
  redirectUri: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.String(), Type.Null()]),
  codeChallenge: Type.Union([Type.String(), Type.Null()]),
  userCode: Type.Union([Type.String(), Type.Null()]),
  intervalSeconds: Type.Union([Type.Integer(), Type.Null()]),
  lastPolledAt: Type.Union([Type.Number(), Type.Null()]),
  approvedBy: Type.Union([Type.String(), Type.Null()]),
  approvedScope: Type.Union([Type.Array(Type.String()), Type.Null()]),
  approvedLifetimeSeconds: Type.Union([Type.Integer(), Type.Null()]),
  tenantId: Type.Union([Type.String(), Type.Null()]),
  familyId: Type.Union([Type.String(), Type.Null()]),
  accessJti: Type.Union([Type.String(), Type.Null()]),
});
export type Authorization = Static<typeof AuthorizationRow>;
const Row = rowSchema(AuthorizationRow);

const COLUMNS = sql.fragment`request_id as "requestId", kind, client_id as "clientId", scope, resource, max_lifetime_seconds as "maxLifetimeSeconds",
  encode(csrf_secret, 'base64') as "csrfSecret", status, extract(epoch from expires_at)::float8 as "expiresAt", redirect_uri as "redirectUri", state,
  code_challenge as "codeChallenge", user_code as "userCode", interval_seconds as "intervalSeconds",
  extract(epoch from last_polled_at)::float8 as "lastPolledAt", approved_by as "approvedBy", approved_scope as "approvedScope",
  approved_lifetime_seconds as "approvedLifetimeSeconds", tenant_id as "tenantId", family_id as "familyId", access_jti as "accessJti"`;

export const csrfSecretOf = (a: Authorization): Uint8Array => Buffer.from(a.csrfSecret, 'base64');

interface Requested {
  clientId: string;
  scope: readonly string[];
  resource: string | undefined;
  maxLifetimeSeconds: number;
  now: number;
}

/** An authorization-code request waiting for a person (RFC 6749 §4.1.1, with PKCE's challenge). */
export async function insertCodeRequest(
  db: CommonQueryMethods,
  r: Requested & { redirectUri: string; state: string; codeChallenge: string },
): Promise<Authorization> {
  return db.one(sql.type(Row)`insert into oauth_authorizations
    (request_id, kind, client_id, scope, resource, max_lifetime_seconds, csrf_secret, expires_at, redirect_uri, state, code_challenge)
    values (${randomUUID()}, 'code', ${r.clientId}, ${sql.array([...r.scope], 'text')}, ${r.resource ?? null}, ${r.maxLifetimeSeconds},
      ${sql.binary(randomBytes(32))}, to_timestamp(${r.now + CONSENT_WINDOW_SECONDS}), ${r.redirectUri}, ${r.state}, ${r.codeChallenge})
    returning ${COLUMNS}`);
}

/**
 * A device authorization (RFC 8628 §3.2): its device code (returned once, stored hashed) and a user
 * code nobody else's live request holds (a collision with a stored one draws again).
 */
export async function insertDeviceRequest(
  db: CommonQueryMethods,
  r: Requested & { lifetimeSeconds: number; intervalSeconds: number },
): Promise<{ authorization: Authorization; deviceCode: string; userCode: string }> {
  const deviceCode = randomBytes(32).toString('base64url');
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    const row = await db.maybeOne(sql.type(Row)`insert into oauth_authorizations
      (request_id, kind, client_id, scope, resource, max_lifetime_seconds, csrf_secret, expires_at, device_code_hash, user_code, interval_seconds)
      values (${randomUUID()}, 'device', ${r.clientId}, ${sql.array([...r.scope], 'text')}, ${r.resource ?? null}, ${r.maxLifetimeSeconds},
        ${sql.binary(randomBytes(32))}, to_timestamp(${r.now + r.lifetimeSeconds}), ${hashOf(deviceCode)}, ${userCode}, ${r.intervalSeconds})
      on conflict (user_code) do nothing
      returning ${COLUMNS}`);
    if (row !== null) return { authorization: row, deviceCode, userCode };
    if (attempt >= 5) throw new Error('could not draw a free user code');
  }
}

export async function findAuthorization(db: CommonQueryMethods, requestId: string): Promise<Authorization | null> {
  return db.maybeOne(sql.type(Row)`select ${COLUMNS} from oauth_authorizations where request_id = ${requestId}`);
}

export async function findByUserCode(db: CommonQueryMethods, userCode: string): Promise<Authorization | null> {
  return db.maybeOne(sql.type(Row)`select ${COLUMNS} from oauth_authorizations where user_code = ${userCode} and kind = 'device'`);
}

export interface Decision {
  approvedBy: string;
  scope: readonly string[];
  lifetimeSeconds: number;
  tenantId: string | null;
}

/**
 * A person's decision on a pending request, taken once (a second submission finds it decided). An
 * approved code request gets its code here: returned once, stored hashed, redeemable for a minute.
 */
export async function decide(
  db: CommonQueryMethods,
  requestId: string,
  decision: Decision | 'deny',
  now: number,
): Promise<{ ok: true; code?: string } | { ok: false }> {
  if (decision === 'deny') {
    const r = await db.query(sql.unsafe`update oauth_authorizations set status = 'denied'
      where request_id = ${requestId} and status = 'pending' and expires_at > to_timestamp(${now})`);
    return r.rowCount === 1 ? { ok: true } : { ok: false };
  }
  const code = randomBytes(32).toString('base64url');
  const r = await db.query(sql.unsafe`update oauth_authorizations set status = 'approved', approved_by = ${decision.approvedBy},
      approved_scope = ${sql.array([...decision.scope], 'text')}, approved_lifetime_seconds = ${decision.lifetimeSeconds}, tenant_id = ${decision.tenantId},
      family_id = ${randomUUID()},
      code_hash = case when kind = 'code' then ${hashOf(code)} end,
      expires_at = case when kind = 'code' then to_timestamp(${now + CODE_LIFETIME_SECONDS}) else expires_at end
    where request_id = ${requestId} and status = 'pending' and expires_at > to_timestamp(${now})`);
  if (r.rowCount !== 1) return { ok: false };
  return { ok: true, code };
}

export type Redemption =
  | { kind: 'unknown' }
  | { kind: 'expired' }
  | { kind: 'reused'; clientId: string; familyId: string | null; accessJti: string | null }
  | { kind: 'refused'; problem: string }
  | { kind: 'live'; authorization: Authorization & { familyId: string } };

/**
 * Spend an authorization code, once (RFC 9700 §4.5.3), if `binding` finds nothing wrong with it. A code presented again marks the authorization
 * revoked, and returns what was issued from it, for the caller to revoke (§4.5.3.1 "SHOULD revoke").
 */
export async function spendCode(pool: DatabasePool, code: string, now: number, binding: (a: Authorization) => string | undefined): Promise<Redemption> {
  return pool.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(Row)`select ${COLUMNS} from oauth_authorizations where code_hash = ${hashOf(code)} for update`);
    if (row === null) return { kind: 'unknown' };
    if (row.status === 'spent' || row.status === 'revoked') {
      await tx.query(sql.unsafe`update oauth_authorizations set status = 'revoked' where request_id = ${row.requestId}`);
      if (row.familyId !== null) {
        await tx.query(sql.unsafe`insert into oauth_refresh_families (family_id, revoked_at, revoked_reason) values (${row.familyId}, now(), 'authorization code reused')
          on conflict (family_id) do update set revoked_at = coalesce(oauth_refresh_families.revoked_at, now()), revoked_reason = 'authorization code reused'`);
      }
      return { kind: 'reused', clientId: row.clientId, familyId: row.familyId, accessJti: row.accessJti };
    }
    if (row.status !== 'approved' || row.expiresAt <= now) return { kind: 'expired' };
    // Client, redirect URI and verifier checked before the code is spent: a stranger's wrong guess burns nothing.
    const problem = binding(row);
    if (problem !== undefined) return { kind: 'refused', problem };
    await tx.query(sql.unsafe`update oauth_authorizations set status = 'spent' where request_id = ${row.requestId}`);
    return { kind: 'live', authorization: { ...row, familyId: row.familyId ?? randomUUID() } };
  });
}

/**
 * One poll of a device code (RFC 8628 §3.5), decided on the row under lock: the answer, with the
 * poll time and a slowed interval stored; an approved authorization is spent by the poll that issues.
 */
export async function pollDeviceCode(
  pool: DatabasePool,
  deviceCode: string,
  now: number,
  clientId: string,
): Promise<{ kind: 'unknown' } | { kind: 'answer'; answer: PollAnswer; authorization: Authorization }> {
  return pool.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(Row)`select ${COLUMNS} from oauth_authorizations where device_code_hash = ${hashOf(deviceCode)} for update`);
    // Another client's device code is as unknown as none (and its polling state is left alone).
    if (row === null || row.clientId !== clientId) return { kind: 'unknown' };
    const status = row.status === 'revoked' ? 'spent' : row.status;
    const answer = answerPoll(
      {
        status: status as 'pending' | 'approved' | 'denied' | 'spent',
        expiresAt: row.expiresAt,
        intervalSeconds: row.intervalSeconds ?? 5,
        ...(row.lastPolledAt !== null ? { lastPolledAt: row.lastPolledAt } : {}),
      },
      now,
    );
    const interval = answer.answer === 'slow_down' ? answer.intervalSeconds : row.intervalSeconds;
    await tx.query(sql.unsafe`update oauth_authorizations set last_polled_at = to_timestamp(${now}), interval_seconds = ${interval},
      status = ${answer.answer === 'issue' ? 'spent' : row.status} where request_id = ${row.requestId}`);
    return { kind: 'answer', answer, authorization: row };
  });
}

/**
 * What a grant issued from an authorization, recorded in the minting transaction so that a replayed code
 * revokes it. `false` when the authorization is no longer `spent`: its code was presented again between
 * the redemption and this mint, and the replay found no token to revoke, so this one must not be issued.
 * The row's lock orders the two: a replay arriving after this update waits for the mint's commit and
 * then finds (and revokes) the jti.
 */
export async function recordIssued(db: CommonQueryMethods, requestId: string, jti: string): Promise<boolean> {
  const r = await db.query(
    sql.unsafe`update oauth_authorizations set access_jti = coalesce(access_jti, ${jti}) where request_id = ${requestId} and status = 'spent'`,
  );
  return r.rowCount === 1;
}

/** Rows a day past their expiry: no code or device code of theirs can be presented to any effect. */
export async function pruneAuthorizations(db: CommonQueryMethods): Promise<number> {
  const r = await db.query(sql.unsafe`delete from oauth_authorizations where expires_at < now() - interval '1 day'`);
  return r.rowCount;
}
