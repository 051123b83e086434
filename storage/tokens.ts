import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

const TokenRow = rowSchema(
  Type.Object({
    jti: Type.String(),
    sub: Type.String(),
    scope: Type.Array(Type.String()),
    tenantId: Type.Union([Type.String(), Type.Null()]),
    kid: Type.String(),
    iat: Type.Number(),
    exp: Type.Number(),
    proven: Type.Boolean(),
  }),
);

/** Issued capability tokens (migration 001): their claims, never the token text. */

export interface IssuedToken {
  jti: string;
  sub: string;
  scope: readonly string[];
  tenantId: string | null;
  kid: string;
  iat: number;
  exp: number;
  proven: boolean;
}

export async function insertIssuedToken(db: CommonQueryMethods, t: IssuedToken): Promise<void> {
  await db.query(sql.unsafe`
    insert into issued_tokens (jti, sub, scope, tenant_id, kid, iat, exp, proven)
    values (${t.jti}, ${t.sub}, ${sql.array([...t.scope], 'text')}, ${t.tenantId}, ${t.kid}, ${t.iat}, ${t.exp}, ${t.proven})`);
}

export async function findIssuedToken(db: CommonQueryMethods, jti: string): Promise<IssuedToken | null> {
  return db.maybeOne(sql.type(TokenRow)`
    select jti, sub, scope, tenant_id as "tenantId", kid, iat, exp, proven from issued_tokens where jti = ${jti}`);
}

/** Forget tokens that expired more than `keepSeconds` ago. */
export async function pruneIssuedTokens(db: CommonQueryMethods, nowSeconds: number, keepSeconds: number): Promise<number> {
  const result = await db.query(sql.unsafe`delete from issued_tokens where exp <= ${nowSeconds - keepSeconds}`);
  return result.rowCount;
}
