import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from '../../../storage/index.ts';

/**
 * The execution log's tables (migration 010): tiles of the RFC 6962 tree, the tree's state, signed
 * checkpoints and pruned records. One function per SQL operation; the caller passes the pool or a
 * transaction.
 */
export interface LogState {
  size: number;
  root: Buffer;
  /** Concatenated 32-byte border roots. */
  peaks: Buffer;
}

/** SHA-256 of nothing: the root of the empty tree (RFC 6962 §2.1). */
const EMPTY_ROOT_HEX = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const StateRow = rowSchema(Type.Object({ size: Type.Number(), root: Type.Any(), peaks: Type.Any() }));

export async function readLogState(db: CommonQueryMethods, forUpdate = false): Promise<LogState | null> {
  const lock = forUpdate ? sql.fragment`for update` : sql.fragment``;
  const row = await db.maybeOne(sql.type(StateRow)`select size, root, peaks from execution_log_state where id = 1 ${lock}`);
  return row ? { size: Number(row.size), root: bytes(row.root), peaks: bytes(row.peaks) } : null;
}

/**
 * Move the tree from `fromSize` to `state` with its changed tiles, in the caller's transaction. False
 * (nothing written) when the stored tree is not at `fromSize`: another writer moved it.
 */
export async function advanceLog(
  tx: DatabaseTransactionConnection,
  fromSize: number,
  state: LogState,
  tiles: ReadonlyArray<{ level: number; index: number; hashes: Buffer }>,
): Promise<boolean> {
  // The state row is made (empty tree) before it is locked: with no row, `for update` locks nothing
  // and two writers advancing from the empty tree would both pass. The second insert waits on the
  // first's key, then reads the row the first committed, and is fenced like any late writer.
  await tx.query(sql.unsafe`
    insert into execution_log_state (id, size, root, peaks) values (1, 0, decode(${EMPTY_ROOT_HEX}, 'hex'), ''::bytea)
    on conflict (id) do nothing`);
  const current = await readLogState(tx, true);
  if ((current?.size ?? 0) !== fromSize) return false;
  if (tiles.length > 0) {
    // A tile only grows: a row is replaced by a longer one, never a shorter (a late writer's).
    await tx.query(sql.unsafe`
      insert into execution_log_tiles (level, idx, hashes)
      select level, idx, decode(hashes, 'hex') from unnest(${sql.array(
        tiles.map((t) => t.level),
        'int2',
      )},
        ${sql.array(
          tiles.map((t) => t.index),
          'int8',
        )}, ${sql.array(
          tiles.map((t) => t.hashes.toString('hex')),
          'text',
        )}) as t(level, idx, hashes)
      on conflict (level, idx) do update set hashes = excluded.hashes
      where length(excluded.hashes) > length(execution_log_tiles.hashes)`);
  }
  await tx.query(sql.unsafe`
    insert into execution_log_state (id, size, root, peaks) values (1, ${state.size}, decode(${state.root.toString('hex')}, 'hex'), decode(${state.peaks.toString('hex')}, 'hex'))
    on conflict (id) do update set size = excluded.size, root = excluded.root, peaks = excluded.peaks, updated_at = now()`);
  return true;
}

const TileRow = rowSchema(Type.Object({ level: Type.Number(), idx: Type.Number(), hashes: Type.Any() }));

/** The stored hashes of the given tiles (as many as are known), keyed `level/index`. */
export async function readLogTiles(db: CommonQueryMethods, tiles: ReadonlyArray<{ level: number; index: number }>): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (tiles.length === 0) return out;
  const rows = await db.any(sql.type(TileRow)`
    select t.level, t.idx, t.hashes from execution_log_tiles t
    join unnest(${sql.array(
      tiles.map((t) => t.level),
      'int2',
    )}, ${sql.array(
      tiles.map((t) => t.index),
      'int8',
    )}) as w(level, idx)
      on t.level = w.level and t.idx = w.idx`);
  for (const r of rows) out.set(`${r.level}/${Number(r.idx)}`, bytes(r.hashes));
  return out;
}

/** The right-edge tile of each level (the one still growing), to resume appending. */
export async function readLastTiles(db: CommonQueryMethods): Promise<Map<number, { index: number; hashes: Buffer }>> {
  const rows = await db.any(sql.type(TileRow)`
    select distinct on (level) level, idx, hashes from execution_log_tiles order by level, idx desc`);
  return new Map(rows.map((r) => [r.level, { index: Number(r.idx), hashes: bytes(r.hashes) }]));
}

export async function insertCheckpoint(db: CommonQueryMethods, c: { size: number; root: Buffer; note: string; vkey: string }): Promise<void> {
  await db.query(sql.unsafe`
    insert into execution_log_checkpoints (size, root, note, vkey) values (${c.size}, decode(${c.root.toString('hex')}, 'hex'), ${c.note}, ${c.vkey})
    on conflict (size) do nothing`);
}

/** Record the note with its cosignature lines for a checkpoint already stored. */
export async function setCheckpointCosigned(db: CommonQueryMethods, size: number, cosigned: string): Promise<void> {
  await db.query(sql.unsafe`update execution_log_checkpoints set cosigned = ${cosigned} where size = ${size}`);
}

const CheckpointRow = rowSchema(
  Type.Object({
    size: Type.Number(),
    root: Type.Any(),
    note: Type.String(),
    vkey: Type.String(),
    cosigned: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.Any(),
  }),
);
export interface StoredCheckpoint {
  size: number;
  root: Buffer;
  note: string;
  vkey: string;
  cosigned: string | null;
  createdAt: Date;
}

function checkpointOf(r: { size: number; root: unknown; note: string; vkey: string; cosigned: string | null; createdAt: unknown }): StoredCheckpoint {
  return { size: Number(r.size), root: bytes(r.root), note: r.note, vkey: r.vkey, cosigned: r.cosigned, createdAt: new Date(r.createdAt as string) };
}

/** The newest checkpoint, or the first at least `atLeast` leaves large (the first to cover a record). */
export async function readCheckpoint(db: CommonQueryMethods, atLeast?: number): Promise<StoredCheckpoint | null> {
  const row =
    atLeast === undefined
      ? await db.maybeOne(
          sql.type(CheckpointRow)`select size, root, note, vkey, cosigned, created_at as "createdAt" from execution_log_checkpoints order by size desc limit 1`,
        )
      : await db.maybeOne(
          sql.type(
            CheckpointRow,
          )`select size, root, note, vkey, cosigned, created_at as "createdAt" from execution_log_checkpoints where size >= ${atLeast} order by size limit 1`,
        );
  return row ? checkpointOf(row) : null;
}

/** The checkpoint of exactly this size. */
export async function readCheckpointOfSize(db: CommonQueryMethods, size: number): Promise<StoredCheckpoint | null> {
  const row = await db.maybeOne(
    sql.type(CheckpointRow)`select size, root, note, vkey, cosigned, created_at as "createdAt" from execution_log_checkpoints where size = ${size}`,
  );
  return row ? checkpointOf(row) : null;
}

const PrunedRow = rowSchema(Type.Object({ seq: Type.Number(), prunedAt: Type.Any() }));

/** When the record of this id (or seq) was pruned under retention, and its seq; null when it was not. */
export async function findPruned(db: CommonQueryMethods, by: { id?: string; seq?: number }): Promise<{ seq: number; prunedAt: Date } | null> {
  const where = by.id !== undefined ? sql.fragment`id = ${by.id}` : sql.fragment`seq = ${by.seq ?? -1}`;
  const row = await db.maybeOne(sql.type(PrunedRow)`select seq, pruned_at as "prunedAt" from execution_log_pruned where ${where}`);
  return row ? { seq: Number(row.seq), prunedAt: new Date(row.prunedAt as string) } : null;
}

/** bytea as the drivers give it: pg a Buffer, PGlite a Uint8Array; text `\\x...` if a parser left it so. */
function bytes(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.length);
  if (typeof v === 'string' && v.startsWith('\\x')) return Buffer.from(v.slice(2), 'hex');
  throw new TypeError('a bytea column did not read as bytes');
}
