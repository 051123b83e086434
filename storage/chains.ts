import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

const HeadRow = rowSchema(Type.Object({ seq: Type.Number(), hash: Type.String(), epoch: Type.Number() }));
const EpochRow = rowSchema(Type.Object({ epoch: Type.Number() }));
const SeqRow = rowSchema(Type.Object({ seq: Type.Number() }));

/** Chain heads and writer leases (migration 001). One function per query; parameters bound. */

export interface ChainHead {
  seq: number;
  hash: string;
  epoch: number;
}

export async function ensureChainHead(db: CommonQueryMethods, chain: string, genesisHash: string): Promise<void> {
  await db.query(sql.unsafe`
    insert into chain_heads (chain, seq, hash, epoch) values (${chain}, 0, ${genesisHash}, 0)
    on conflict (chain) do nothing`);
}

export async function readChainHead(db: CommonQueryMethods, chain: string): Promise<ChainHead | null> {
  return db.maybeOne(sql.type(HeadRow)`select seq, hash, epoch from chain_heads where chain = ${chain}`);
}

/**
 * Take the lease when it is free, expired, or already ours. Times come from the database clock so
 * that writers on different machines agree. Returns the fencing epoch, or null when another holder
 * has it.
 */
export async function acquireChainLease(db: CommonQueryMethods, chain: string, holder: string, ttlMs: number): Promise<number | null> {
  const row = await db.maybeOne(sql.type(EpochRow)`
    insert into chain_leases (chain, holder, epoch, expires_at)
    values (${chain}, ${holder}, 1, now() + make_interval(secs => ${ttlMs / 1000}))
    on conflict (chain) do update
      set holder = excluded.holder,
          epoch = chain_leases.epoch + 1,
          expires_at = excluded.expires_at
      where chain_leases.expires_at < now() or chain_leases.holder = excluded.holder
    returning epoch`);
  return row ? row.epoch : null;
}

/** Extend our lease; false means it is no longer ours (another writer took over). */
export async function renewChainLease(db: CommonQueryMethods, chain: string, holder: string, epoch: number, ttlMs: number): Promise<boolean> {
  const row = await db.maybeOne(sql.type(EpochRow)`
    update chain_leases set expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    where chain = ${chain} and holder = ${holder} and epoch = ${epoch} and expires_at > now()
    returning epoch`);
  return row !== null;
}

export async function releaseChainLease(db: CommonQueryMethods, chain: string, holder: string, epoch: number): Promise<void> {
  await db.query(sql.unsafe`
    update chain_leases set expires_at = now() - interval '1 millisecond'
    where chain = ${chain} and holder = ${holder} and epoch = ${epoch}`);
}

/**
 * The fencing write, run inside the transaction that inserts the records: the head moves only if it
 * is still where this writer last saw it and the writer still holds the lease at this epoch.
 */
export async function advanceChainHead(
  tx: CommonQueryMethods,
  chain: string,
  move: { fromSeq: number; fromHash: string; toSeq: number; toHash: string; holder: string; epoch: number },
): Promise<boolean> {
  const row = await tx.maybeOne(sql.type(SeqRow)`
    update chain_heads set seq = ${move.toSeq}, hash = ${move.toHash}, epoch = ${move.epoch}
    where chain = ${chain} and seq = ${move.fromSeq} and hash = ${move.fromHash}
      and exists (
        select 1 from chain_leases l
        where l.chain = ${chain} and l.holder = ${move.holder} and l.epoch = ${move.epoch} and l.expires_at > now())
    returning seq`);
  return row !== null;
}
