import { sql, type CommonQueryMethods } from 'slonik';

/**
 * The durable jti cache (RFC 7523 §3 item 7, RFC 9449 §11.1): the first use of a jti inserts its row;
 * a second is a conflict, refused, on every replica and after a restart. `kind` separates the
 * namespaces (a client's assertions, a key's DPoP proofs). Rows whose proof is dead are pruned.
 */
export async function firstUseOfJti(db: CommonQueryMethods, kind: string, jti: string, expSeconds: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`insert into oauth_jti_seen (kind, jti, exp) values (${kind}, ${jti}, to_timestamp(${expSeconds}))
    on conflict (kind, jti) do nothing`);
  return result.rowCount === 1;
}

export async function pruneSeenJti(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.unsafe`delete from oauth_jti_seen where exp < now() - interval '5 minutes'`);
  return result.rowCount;
}
