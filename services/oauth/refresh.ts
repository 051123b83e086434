import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../storage/index.ts';

/**
 * Refresh tokens (RFC 9700 §4.14.2): opaque random strings, stored as their SHA-256, rotated on every
 * use. A refresh token presented a second time means two parties hold it: the whole family is revoked,
 * and the access tokens minted from it with it (the caller revokes those jtis on the bus).
 */
export interface RefreshGrantState {
  familyId: string;
  clientId: string;
  sub: string;
  scope: string[];
  aud: string | null;
  tenantId: string | null;
  jkt: string | null;
  claims: Record<string, unknown>;
  lifetimeSeconds: number;
}

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const newFamilyId = () => randomUUID();

export async function storeRefreshToken(db: CommonQueryMethods, s: RefreshGrantState & { accessJti: string; expiresAt: number }): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(sql.unsafe`insert into oauth_refresh_families (family_id) values (${s.familyId}) on conflict do nothing`);
  await db.query(sql.unsafe`insert into oauth_refresh_tokens
    (token_hash, family_id, client_id, sub, scope, aud, tenant_id, jkt, claims, lifetime_seconds, expires_at, access_jti)
    values (${hashOf(token)}, ${s.familyId}, ${s.clientId}, ${s.sub}, ${sql.array(s.scope, 'text')}, ${s.aud}, ${s.tenantId}, ${s.jkt},
      ${sql.jsonb(s.claims as never)}, ${s.lifetimeSeconds}, to_timestamp(${s.expiresAt}), ${s.accessJti})`);
  return token;
}

const Row = rowSchema(
  Type.Object({
    familyId: Type.String(),
    clientId: Type.String(),
    sub: Type.String(),
    scope: Type.Array(Type.String()),
    aud: Type.Union([Type.String(), Type.Null()]),
    tenantId: Type.Union([Type.String(), Type.Null()]),
    jkt: Type.Union([Type.String(), Type.Null()]),
    claims: Type.Record(Type.String(), Type.Unknown()),
    lifetimeSeconds: Type.Number(),
    expired: Type.Boolean(),
    used: Type.Boolean(),
    familyRevoked: Type.Boolean(),
  }),
);
const JtiRow = rowSchema(Type.Object({ jti: Type.String() }));

export type RefreshUse =
  | { kind: 'unknown' }
  | { kind: 'dead'; reason: string }
  | { kind: 'reused'; familyId: string; clientId: string; accessJtis: string[] }
  | { kind: 'live'; state: RefreshGrantState };

/** Spend a refresh token, in one transaction (two concurrent uses: one is the reuse). */
export async function spendRefreshToken(pool: DatabasePool, token: string): Promise<RefreshUse> {
  return pool.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(Row)`
      select r.family_id as "familyId", r.client_id as "clientId", r.sub, r.scope, r.aud, r.tenant_id as "tenantId", r.jkt, r.claims,
        r.lifetime_seconds as "lifetimeSeconds", r.expires_at <= now() as expired, r.used_at is not null as used,
        f.revoked_at is not null as "familyRevoked"
      from oauth_refresh_tokens r join oauth_refresh_families f using (family_id)
      where r.token_hash = ${hashOf(token)} for update of r, f`);
    if (row === null) return { kind: 'unknown' };
    if (row.familyRevoked) return { kind: 'dead', reason: "the refresh token's family was revoked" };
    if (row.used) {
      await tx.query(
        sql.unsafe`update oauth_refresh_families set revoked_at = now(), revoked_reason = 'refresh token reused' where family_id = ${row.familyId}`,
      );
      const jtis = await tx.anyFirst(
        sql.type(JtiRow)`select access_jti as jti from oauth_refresh_tokens where family_id = ${row.familyId} and access_jti is not null`,
      );
      return { kind: 'reused', familyId: row.familyId, clientId: row.clientId, accessJtis: [...jtis] };
    }
    if (row.expired) return { kind: 'dead', reason: 'the refresh token has expired' };
    await tx.query(sql.unsafe`update oauth_refresh_tokens set used_at = now() where token_hash = ${hashOf(token)}`);
    const { expired: _e, used: _u, familyRevoked: _f, ...state } = row;
    return { kind: 'live', state: { ...state, scope: [...state.scope] } };
  });
}

/** The access tokens minted in a family (to revoke them when the grant that started it is replayed). */
export async function familyAccessJtis(db: CommonQueryMethods, familyId: string): Promise<string[]> {
  return [
    ...(await db.anyFirst(sql.type(JtiRow)`select access_jti as jti from oauth_refresh_tokens where family_id = ${familyId} and access_jti is not null`)),
  ];
}
