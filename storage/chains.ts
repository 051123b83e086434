import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

const HeadRow = rowSchema(Type.Object({ seq: Type.Number(), hash: Type.String(), epoch: Type.Number() }));
const EpochRow = rowSchema(Type.Object({ epoch: Type.Number() }));
const RemainingRow = rowSchema(Type.Object({ ms: Type.Number() }));

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

/**
 * How long until the chain's lease expires by the database clock, in ms (0 when it has or there is
 * none): a standby tries again then, instead of up to a renewal period later.
 */
export async function chainLeaseRemainingMs(db: CommonQueryMethods, chain: string): Promise<number> {
  const row = await db.maybeOne(sql.type(RemainingRow)`
    select greatest(0, extract(epoch from (expires_at - clock_timestamp())) * 1000)::float8 as ms
    from chain_leases where chain = ${chain}`);
  return row ? row.ms : 0;
}

/** Extend our lease; false means it is no longer ours (another writer took over). */
export async function renewChainLease(db: CommonQueryMethods, chain: string, holder: string, epoch: number, ttlMs: number): Promise<boolean> {
  const row = await db.maybeOne(sql.type(EpochRow)`
    update chain_leases set expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    where chain = ${chain} and holder = ${holder} and epoch = ${epoch} and expires_at > now()
    returning epoch`);
  return row !== null;
}

/**
 * Extend our lease even though it ran out, if nobody took it since (issue 36, item 8): a renewal
 * that came late because this process was busy (the first seconds after start) is not a lost lease.
 * Safe for fencing: every take of the lease moves its epoch, so holder and epoch unchanged mean no
 * other writer led, and the head is where this writer left it. False: another writer took it.
 */
export async function reclaimChainLease(db: CommonQueryMethods, chain: string, holder: string, epoch: number, ttlMs: number): Promise<boolean> {
  const row = await db.maybeOne(sql.type(EpochRow)`
    update chain_leases set expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    where chain = ${chain} and holder = ${holder} and epoch = ${epoch}
    returning epoch`);
  return row !== null;
}

export async function releaseChainLease(db: CommonQueryMethods, chain: string, holder: string, epoch: number): Promise<void> {
  await db.query(sql.unsafe`
    update chain_leases set expires_at = now() - interval '1 millisecond'
    where chain = ${chain} and holder = ${holder} and epoch = ${epoch}`);
}

/** Where a commit moves a chain's head, and who may move it (the lease holder at this epoch). */
export interface HeadMove {
  chain: string;
  fromSeq: number;
  fromHash: string;
  toSeq: number;
  toHash: string;
  holder: string;
  epoch: number;
}

/**
 * The fencing write as common table expressions ending in `moved` (one row when the head moved),
 * for an insert of the records that runs `where exists (select 1 from moved)`: head and records then
 * change in ONE statement, atomically, in one round trip to the database. The head moves only if it
 * is where this writer last saw it and the writer still holds the lease at this epoch.
 *
 * Both rows are locked, not just read. The lease row is held `for share` until the commit, so no
 * other writer can take the lease over while this statement writes (a takeover waits for it); a
 * takeover that committed first leaves a row that no longer matches holder and epoch, and nothing
 * moves. The head row is locked `for update`: a statement that has to wait for another's commit
 * then reads the head that commit left (under READ COMMITTED a locking read returns the newest
 * version) instead of failing on the one its snapshot saw. Expiry is judged by clock_timestamp()
 * when the lease is locked, not at the start of a statement that may have waited.
 */
export function headMoveCte(m: HeadMove) {
  return sql.fragment`lease as (
    select 1 from chain_leases
    where chain = ${m.chain} and holder = ${m.holder} and epoch = ${m.epoch} and expires_at > clock_timestamp()
    for share),
  head as (select seq, hash from chain_heads where chain = ${m.chain} for update),
  moved as (
    update chain_heads h set seq = ${m.toSeq}, hash = ${m.toHash}, epoch = ${m.epoch}
    from head
    where h.chain = ${m.chain} and head.seq = ${m.fromSeq} and head.hash = ${m.fromHash} and exists (select 1 from lease)
    returning h.seq)`;
}

const NoRows = rowSchema(Type.Object({}));

/**
 * A group commit's insert as a statement prepared once per connection under `name` (planning it
 * each time cost the database more than the rows); with `move`, prefixed by the fenced head move
 * (headMoveCte) and inserting nothing when the head could not move. Answers the rows inserted.
 */
export async function insertMovingHead(
  db: CommonQueryMethods,
  name: string,
  insert: FragmentSqlToken,
  move?: HeadMove,
  alongside?: FragmentSqlToken,
): Promise<number> {
  // `alongside`: more common table expressions written by the same statement (the append's audit
  // entries, storage/executions.ts); with `move`, they may read `moved` to write nothing when it did not.
  const result = move
    ? alongside
      ? await db.query(sql.prepared(`${name}_moving_head_with`, NoRows)`with ${headMoveCte(move)}, ${alongside} ${insert} where exists (select 1 from moved)`)
      : await db.query(sql.prepared(`${name}_moving_head`, NoRows)`with ${headMoveCte(move)} ${insert} where exists (select 1 from moved)`)
    : alongside
      ? await db.query(sql.prepared(`${name}_with`, NoRows)`with ${alongside} ${insert}`)
      : await db.query(sql.prepared(name, NoRows)`${insert}`);
  return result.rowCount;
}
