import { SuiteError, subjects, type Bus, type Subscription } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import { executionsPageAfter, getExecution } from '../../../storage/index.ts';
import { findPruned, readCheckpoint, readCheckpointOfSize, readLogState, readLogTiles } from './store.ts';
import {
  consistencyProof,
  encodeEntryBundle,
  inclusionProof,
  leafHash,
  TileNodeCache,
  tileWidthAt,
  TILE_WIDTH,
  type NodeReader,
} from '../../../core/tlog/index.ts';
import { BusActor, replyOf } from '../../../actors/base/index.ts';
import { logEntry } from './log-entry.ts';
import { prunedRecord } from './pruned.ts';

/**
 * How long a receipt waits for a checkpoint covering its record: the maintainer signs one at most
 * `checkpointEveryMs` (1 s) after a commit; three of those, inside the bus's 5 s request timeout.
 */
export const RECEIPT_WAIT_MS = 3000;
const CHECKPOINT_POLL_MS = 50;

/**
 * Reads of the execution log on any reader replica (queue `executions`): checkpoints, tiles, entry
 * bundles, proofs and receipts, all from the tables the maintainer writes (never from its memory),
 * so any replica answers alike. Everything here is public: the edge asks no credential.
 */
export class ExecutionLogReaderActor extends BusActor {
  readonly #bus: Bus;
  readonly #storage: Storage;
  /**
   * Full tiles read so far with their nodes rebuilt, and the right edge's nodes: none ever changes,
   * so a proof queries only tiles holding nodes not seen yet (32 MB at most, core/tlog/tile-cache.ts).
   */
  readonly #nodes = new TileNodeCache();
  #pendingRead: ReturnType<typeof readCheckpoint> | undefined;

  constructor(o: { bus: Bus; storage: Storage }) {
    super();
    this.#bus = o.bus;
    this.#storage = o.storage;
  }

  protected subscriptions(): Subscription[] {
    const queue = { queue: 'executions' };
    const db = this.#storage.pool;
    return [
      this.#bus.serve(
        subjects.executionsLogCheckpoint,
        () =>
          replyOf(async () => {
            const c = await readCheckpoint(db);
            if (!c) throw new SuiteError('SERVICE_UNAVAILABLE', 'no checkpoint published yet: the log is starting');
            return { note: c.cosigned ?? c.note, size: c.size };
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsLogVkey,
        () =>
          replyOf(async () => {
            const c = await readCheckpoint(db);
            if (!c) throw new SuiteError('SERVICE_UNAVAILABLE', 'no checkpoint published yet: the log is starting');
            return { vkey: c.vkey, origin: c.note.slice(0, c.note.indexOf('\n')) };
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsLogTile,
        ({ data }) =>
          replyOf(async () => {
            const bytes = data.level === 'entries' ? await this.#entryBundle(data.index, data.width) : await this.#hashTile(data.level, data.index, data.width);
            return { bytes: bytes.toString('base64') };
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsLogProof,
        ({ data }) =>
          replyOf(async () => {
            const leafIndex = await this.#leafIndexOf(data.id);
            const size = data.size ?? (await readCheckpoint(db))?.size ?? 0;
            await this.#checkSize(size, `size ${size}`);
            if (leafIndex >= size) throw new SuiteError('INVALID_REQUEST', `record ${data.id} is leaf ${leafIndex}, not in a tree of size ${size}`);
            const read = await this.#reader((r) => [r(0, leafIndex), inclusionProof(leafIndex, size, r)]);
            const proof = inclusionProof(leafIndex, size, read);
            const checkpoint = await readCheckpointOfSize(db, size);
            return {
              id: data.id,
              leafIndex,
              treeSize: size,
              leafHash: read(0, leafIndex).toString('base64'),
              proof: proof.map((p) => p.toString('base64')),
              ...(checkpoint ? { checkpoint: checkpoint.cosigned ?? checkpoint.note } : {}),
            };
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsLogConsistency,
        ({ data }) =>
          replyOf(async () => {
            if (data.from < 1 || data.from > data.to) throw new SuiteError('INVALID_REQUEST', 'from must be at least 1 and at most to');
            await this.#checkSize(data.to, `to ${data.to}`);
            const read = await this.#reader((r) => consistencyProof(data.from, data.to, r));
            return { from: data.from, to: data.to, proof: consistencyProof(data.from, data.to, read).map((p) => p.toString('base64')) };
          }),
        queue,
      ),
      this.#bus.serve(subjects.executionsPruned, ({ data }) => replyOf(() => prunedRecord(db, data.id)), queue),
      this.#bus.serve(
        subjects.executionsLogReceipt,
        ({ data }) =>
          replyOf(async () => {
            const record = await getExecution(db, data.id);
            if (!record) {
              await this.#leafIndexOf(data.id);
              throw new SuiteError('NOT_FOUND', 'no execution with this id');
            }
            const leafIndex = record.seq - 1;
            const checkpoint = await this.#checkpointCovering(leafIndex);
            if (!checkpoint) {
              // Past the wait a checkpoint is overdue: the log's maintainer is down or far behind, an outage.
              throw new SuiteError(
                'SERVICE_UNAVAILABLE',
                `no checkpoint covers the record after ${RECEIPT_WAIT_MS} ms: the execution log's maintainer is behind; retry`,
              );
            }
            const size = checkpoint.size;
            // The leaf itself too: its tile is not among the proof's when no proof node shares it (size 1; leaf 256 of 257).
            const read = await this.#reader((r) => [r(0, leafIndex), inclusionProof(leafIndex, size, r)]);
            const entry = logEntry(record);
            // The stored leaf must be this record's: a record edited in the database gets no receipt.
            if (!read(0, leafIndex).equals(leafHash(entry))) throw new SuiteError('CONFLICT', 'the stored record no longer matches its leaf in the log');
            return {
              format: 'execution-receipt/v1' as const,
              record,
              entry: entry.toString('utf8'),
              leafIndex,
              treeSize: size,
              proof: inclusionProof(leafIndex, size, read).map((p) => p.toString('base64')),
              checkpoint: checkpoint.cosigned ?? checkpoint.note,
            };
          }),
        queue,
      ),
    ];
  }

  /**
   * The latest checkpoint once it covers `leafIndex`, waiting up to RECEIPT_WAIT_MS (issue 36, item
   * 3): a receipt asked for right after its record is answered when the next checkpoint is signed
   * (at most a second later), not refused with a 503. The maintainer may run in another process, so
   * the table is read: one read every CHECKPOINT_POLL_MS shared by every receipt waiting.
   */
  async #checkpointCovering(leafIndex: number): Promise<Awaited<ReturnType<typeof readCheckpoint>> | undefined> {
    const deadline = Date.now() + RECEIPT_WAIT_MS;
    for (;;) {
      const checkpoint = await this.#sharedCheckpointRead();
      if (checkpoint && checkpoint.size > leafIndex) return checkpoint;
      if (Date.now() >= deadline || this.state !== 'running') return undefined;
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_POLL_MS).unref());
    }
  }

  /** One checkpoint read at a time, shared by concurrent callers. */
  #sharedCheckpointRead(): ReturnType<typeof readCheckpoint> {
    this.#pendingRead ??= readCheckpoint(this.#storage.pool).finally(() => {
      this.#pendingRead = undefined;
    });
    return this.#pendingRead;
  }

  /** A record's leaf index; a pruned record keeps its leaf, and says it was pruned when asked for itself. */
  async #leafIndexOf(id: string): Promise<number> {
    const db = this.#storage.pool;
    const record = await getExecution(db, id);
    if (record) return record.seq - 1;
    const pruned = await findPruned(db, { id });
    if (pruned) return pruned.seq - 1;
    throw new SuiteError('NOT_FOUND', 'no execution with this id');
  }

  async #checkSize(size: number, what: string): Promise<void> {
    const state = await readLogState(this.#storage.pool);
    if (size > (state?.size ?? 0)) throw new SuiteError('INVALID_REQUEST', `${what} is beyond the log's tree (${state?.size ?? 0} leaves)`);
  }

  /** A node reader for what `build` reads: the nodes kept, and the tiles holding the others fetched in one query. */
  #reader(build: (read: NodeReader) => unknown): Promise<NodeReader> {
    return this.#nodes.reader(build, (tiles) => readLogTiles(this.#storage.pool, tiles));
  }

  async #hashTile(level: number, index: number, width: number): Promise<Buffer> {
    const tile = (await readLogTiles(this.#storage.pool, [{ level, index }])).get(`${level}/${index}`);
    // A full tile is served only once full; a partial one of width W once W hashes are known.
    if (!tile || tile.length < width * 32) throw new SuiteError('NOT_FOUND', 'no such tile in the log (yet)');
    return tile.subarray(0, width * 32);
  }

  async #entryBundle(index: number, width: number): Promise<Buffer> {
    const db = this.#storage.pool;
    const state = await readLogState(db);
    if (tileWidthAt(0, index, state?.size ?? 0) < width) throw new SuiteError('NOT_FOUND', 'no such entry bundle in the log (yet)');
    const first = index * TILE_WIDTH;
    const records = await executionsPageAfter(db, first, width);
    let held = 0;
    while (held < records.length && records[held]?.seq === first + held + 1) held += 1;
    if (held < width) {
      const gone = await findPruned(db, { seq: first + held + 1 });
      throw new SuiteError(
        'NOT_FOUND',
        gone ? 'entries of this bundle were pruned under retention; their leaf hashes stay in the tiles' : 'entries of this bundle are missing from the chain',
      );
    }
    return encodeEntryBundle(records.map((r) => logEntry(r)));
  }
}
