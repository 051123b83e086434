import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

const VersionRow = rowSchema(Type.Object({ version: Type.Number() }));
const RevocationRow = rowSchema(Type.Object({ jti: Type.String(), exp: Type.Number() }));

/** Revocations (migration 001): durable, with a gapless version shared by all replicas. */

export interface Revocation {
  jti: string;
  exp: number;
}

/**
 * Record a revocation. The version counter is bumped in the same transaction, so versions are
 * gapless and ordered by commit. Revoking twice is idempotent and does not bump the version.
 */
export async function insertRevocation(pool: DatabasePool, r: Revocation & { by: string }): Promise<{ version: number; created: boolean }> {
  return pool.transaction(async (tx) => {
    const existing = await tx.maybeOne(sql.type(VersionRow)`select version from revocations where jti = ${r.jti}`);
    if (existing) return { version: existing.version, created: false };
    const version = await tx.oneFirst(sql.type(VersionRow)`
      update revocation_state set version = version + 1 where id = 1 returning version`);
    await tx.query(sql.unsafe`
      insert into revocations (jti, exp, version, revoked_by) values (${r.jti}, ${r.exp}, ${version}, ${r.by})`);
    return { version, created: true };
  });
}

const JtiRow = rowSchema(Type.Object({ jti: Type.String() }));

/**
 * Record many revocations in one transaction (an identity's suspension). The version row is locked
 * first, so the new versions are consecutive and gapless like single revocations'; jtis already
 * revoked keep their version. Returns the new ones with their versions, in version order.
 */
export async function insertRevocations(
  pool: DatabasePool,
  entries: readonly Revocation[],
  by: string,
): Promise<{ version: number; created: Array<Revocation & { version: number }> }> {
  return pool.transaction(async (tx) => {
    const current = await tx.oneFirst(sql.type(VersionRow)`select version from revocation_state where id = 1 for update`);
    const jtis = [...new Set(entries.map((e) => e.jti))];
    const existing = new Set(await tx.anyFirst(sql.type(JtiRow)`select jti from revocations where jti = any(${sql.array(jtis, 'text')})`));
    const seen = new Set<string>();
    const created: Array<Revocation & { version: number }> = [];
    for (const e of entries) {
      if (existing.has(e.jti) || seen.has(e.jti)) continue;
      seen.add(e.jti);
      created.push({ jti: e.jti, exp: e.exp, version: current + created.length + 1 });
    }
    if (created.length === 0) return { version: current, created };
    await tx.query(sql.unsafe`
      insert into revocations (jti, exp, version, revoked_by)
      select jti, exp, version, ${by} from unnest(
        ${sql.array(
          created.map((c) => c.jti),
          'text',
        )}, ${sql.array(
          created.map((c) => c.exp),
          'int8',
        )},
        ${sql.array(
          created.map((c) => c.version),
          'int8',
        )}) as t(jti, exp, version)`);
    const version = current + created.length;
    await tx.query(sql.unsafe`update revocation_state set version = ${version} where id = 1`);
    return { version, created };
  });
}

export async function revocationVersion(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(VersionRow)`select version from revocation_state where id = 1`);
}

/** Every revocation still relevant (its token not yet expired), with the version it reflects. */
export async function revocationSnapshot(pool: DatabasePool, nowSeconds: number): Promise<{ version: number; entries: Revocation[] }> {
  return pool.transaction(async (tx) => {
    // One transaction so that the version and the rows agree.
    const version = await revocationVersion(tx);
    const entries = await tx.any(sql.type(RevocationRow)`select jti, exp from revocations where exp > ${nowSeconds}`);
    return { version, entries: [...entries] };
  });
}

/** Delete revocations of tokens that have expired anyway: an expired token is refused without them. */
export async function pruneRevocations(db: CommonQueryMethods, nowSeconds: number): Promise<number> {
  const result = await db.query(sql.unsafe`delete from revocations where exp <= ${nowSeconds}`);
  return result.rowCount;
}
