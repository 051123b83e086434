import type { Storage } from '../../../storage/index.ts';
import { executionsPageAfter, readChainHead } from '../../../storage/index.ts';
import { advanceLog, insertCheckpoint, readCheckpoint, readLastTiles, readLogState, type LogState } from './store.ts';
import type { ExecutionRecord } from '../../../core/chain/index.ts';
import { CompactTree, TILE_HEIGHT, TILE_WIDTH, formatCheckpoint, signNote, type NoteSigner } from '../../../core/tlog/index.ts';
import { logLeafHash } from './log-entry.ts';

type Logger = { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };

export interface LogMaintainerOptions {
  storage: Storage;
  /** The checkpoint origin line (and the note key's name). */
  origin: string;
  signer: NoteSigner;
  /** The signer's verifier key (signed-note vkey), stored beside each checkpoint it signs. */
  vkey: string;
  /** Most time between a record's commit and a checkpoint that covers it (default 1000 ms). */
  checkpointEveryMs?: number;
  /** Records read per statement when catching up with the chain (default 1000). */
  backfillPage?: number;
  /**
   * The least time committed records wait to be integrated together (default 100 ms). Under load
   * they wait longer, until the next checkpoint is due (`checkpointEveryMs` after the last), so that
   * one round, one transaction, writes the edge tiles once per checkpoint (issue 34, item 5).
   */
  integrateEveryMs?: number;
  /** A round starts at once when this many records are queued (default 20,000: about 2 MB of leaves). */
  maxPending?: number;
  logger?: Logger;
  clock?: () => number;
  /** Called with each checkpoint published (the witness collector cosigns it). */
  onCheckpoint?: (c: { size: number; note: string }) => void;
}

/** A committed record as the tree needs it: its place in the chain (seq) and its leaf hash. */
interface Leaf {
  seq: number;
  hash: Buffer;
}

/** A tile on the right edge of the tree, still growing: its hashes so far. */
interface EdgeTile {
  index: number;
  hashes: Buffer[];
}

/**
 * Keeps the RFC 6962 tree over the execution chain as records commit, in the process whose chain
 * writer leads. The hot path only queues the committed records (`committed`); at the next turn they
 * become leaf hashes (so the records themselves are not held for a whole round), and integration runs
 * batch by batch, at most one round per checkpoint under load: the right border (CompactTree), the
 * tiles that changed, all written in one transaction fenced by the stored size (a late writer that
 * lost the lead writes nothing). It catches up from the database whenever it resumes, which is also the backfill of a
 * chain that existed before the log did. Then a signed checkpoint, at most `checkpointEveryMs` after
 * the records it covers.
 */
export class ExecutionLogMaintainer {
  readonly #o: LogMaintainerOptions & { checkpointEveryMs: number; backfillPage: number; integrateEveryMs: number; maxPending: number };
  #tree: CompactTree | undefined;
  #edge = new Map<number, EdgeTile>();
  /** Commits told of, not yet hashed (until the next turn: off the path of the commit's answers). */
  #arrived: Array<readonly ExecutionRecord[]> = [];
  #hashing: NodeJS.Immediate | undefined;
  #pending: Leaf[] = [];
  #running: Promise<void> | undefined;
  #active = false;
  #timer: NodeJS.Timeout | undefined;
  #gather: NodeJS.Timeout | undefined;
  /** Set on (re)load: the chain's head is read until the tree reaches it (catch-up, backfill). */
  #catchingUp = false;
  #checkpointed = -1;
  #checkpointedAt = 0;
  #rounds = 0;

  constructor(o: LogMaintainerOptions) {
    this.#o = { checkpointEveryMs: 1000, backfillPage: 1000, integrateEveryMs: 100, maxPending: 20_000, ...o };
  }

  /** The tree's size as integrated here (undefined before the first resume). */
  get size(): number | undefined {
    return this.#tree?.size;
  }

  /** Integration rounds written so far (one transaction each): what batching saves is counted here. */
  get rounds(): number {
    return this.#rounds;
  }

  /** From the commit path: queue, never wait. */
  committed(records: readonly ExecutionRecord[]): void {
    if (!this.#active) return;
    this.#arrived.push(records);
    this.#hashing ??= setImmediate(() => this.#hashArrived());
  }

  /** The records told of become leaves; a round is due when enough are queued, else gathered for later. */
  #hashArrived(): void {
    if (this.#hashing) clearImmediate(this.#hashing);
    this.#hashing = undefined;
    const arrived = this.#arrived;
    this.#arrived = [];
    if (!this.#active) return;
    for (const records of arrived) for (const r of records) this.#pending.push({ seq: r.seq, hash: logLeafHash(r) });
    if (this.#pending.length >= this.#o.maxPending) void this.#kick();
    else if (this.#pending.length > 0) this.#gatherLater();
  }

  /**
   * Integrate what is queued in one round, once `integrateEveryMs` has passed and the next checkpoint
   * is due: records keep coming under load, and a round per checkpoint writes each edge tile once per
   * checkpoint instead of once per round. A quiet log (its last checkpoint older than that) waits only
   * `integrateEveryMs`.
   */
  #gatherLater(): void {
    if (this.#gather) return;
    const untilCheckpoint = this.#checkpointedAt + this.#o.checkpointEveryMs - (this.#o.clock ?? Date.now)();
    this.#gather = setTimeout(
      () => {
        this.#gather = undefined;
        void this.#kick();
      },
      Math.max(this.#o.integrateEveryMs, untilCheckpoint),
    );
    this.#gather.unref();
  }

  /** Start (or start again, on regaining the lead): load the stored tree and catch up with the chain. */
  resume(): Promise<void> {
    this.#active = true;
    this.#tree = undefined;
    return this.#kick();
  }

  /** Stop integrating (leadership lost, or stopping); what is queued is left to the next leader's catch-up. */
  async pause(): Promise<void> {
    this.#active = false;
    this.#pending = [];
    this.#arrived = [];
    if (this.#hashing) clearImmediate(this.#hashing);
    this.#hashing = undefined;
    if (this.#gather) clearTimeout(this.#gather);
    this.#gather = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** Resolves once everything committed so far is integrated and checkpointed (tests, bench). */
  async settled(): Promise<void> {
    // Records answered just now reach `committed` at the next turn (the chain writer runs what
    // follows a commit once its answers are out): let that turn come first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A round leaves what came during it for the next window: go on until nothing is left.
    if (this.#hashing) this.#hashArrived();
    while (this.#active && (this.#gather || this.#pending.length > 0)) {
      if (this.#gather) clearTimeout(this.#gather);
      this.#gather = undefined;
      await this.#kick().catch(() => undefined);
    }
    while (this.#running !== undefined) await this.#running.catch(() => undefined);
  }

  #kick(): Promise<void> {
    this.#running ??= this.#loop().finally(() => {
      this.#running = undefined;
      if (this.#active && this.#pending.length > 0) this.#gatherLater();
    });
    return this.#running;
  }

  async #loop(): Promise<void> {
    while (this.#active) {
      try {
        if (!this.#tree) await this.#load();
        const tree = this.#tree as CompactTree;
        if (this.#pending.length === 0) {
          if (!this.#catchingUp) break;
          if ((await this.#chainHead()) <= tree.size) {
            this.#catchingUp = false;
            break;
          }
        }
        const batch = await this.#nextBatch(tree.size);
        if (batch.length > 0) await this.#integrate(batch);
        this.#maybeCheckpoint(false);
        // Records that came during that round gather for the next window (`committed`) instead of
        // making a round (a commit, a sync) of their own: one at a time, they would cost one each.
        if (!this.#catchingUp && this.#pending.length < this.#o.maxPending) break;
      } catch (err) {
        this.#o.logger?.warn({ err }, 'execution log: integration failed; retried from the stored tree');
        this.#tree = undefined;
        await new Promise((resolve) => setTimeout(resolve, 200).unref());
      }
    }
    this.#maybeCheckpoint(false);
  }

  async #chainHead(): Promise<number> {
    return (await readChainHead(this.#o.storage.pool, 'executions'))?.seq ?? 0;
  }

  /** The leaves after `size`, in order: the queued ones when they follow on, else read from the chain. */
  async #nextBatch(size: number): Promise<Leaf[]> {
    this.#pending = this.#pending.filter((l) => l.seq > size);
    const first = this.#pending[0];
    if (first && first.seq === size + 1) {
      const batch = this.#pending;
      this.#pending = [];
      return batch;
    }
    const limit = first ? Math.min(this.#o.backfillPage, first.seq - size - 1) : this.#o.backfillPage;
    return (await executionsPageAfter(this.#o.storage.pool, size, limit)).map((r) => ({ seq: r.seq, hash: logLeafHash(r) }));
  }

  async #load(): Promise<void> {
    const db = this.#o.storage.pool;
    const state = await readLogState(db);
    const peaks: Buffer[] = [];
    if (state) for (let at = 0; at < state.peaks.length; at += 32) peaks.push(Buffer.from(state.peaks.subarray(at, at + 32)));
    this.#tree = new CompactTree(state?.size ?? 0, peaks);
    this.#catchingUp = true;
    this.#edge = new Map();
    for (const [level, t] of await readLastTiles(db)) {
      const hashes: Buffer[] = [];
      for (let at = 0; at < t.hashes.length; at += 32) hashes.push(Buffer.from(t.hashes.subarray(at, at + 32)));
      this.#edge.set(level, { index: t.index, hashes });
    }
    const last = await readCheckpoint(db);
    this.#checkpointed = last?.size ?? -1;
    if (!last) this.#maybeCheckpoint(true);
  }

  async #integrate(leaves: readonly Leaf[]): Promise<void> {
    const tree = this.#tree as CompactTree;
    const fromSize = tree.size;
    // Work on copies: if the write is fenced, the stored tree is reloaded and nothing here is kept.
    const next = new CompactTree(tree.size, tree.peaks);
    const edge = new Map([...this.#edge].map(([l, t]) => [l, { index: t.index, hashes: [...t.hashes] }]));
    const touched = new Set<number>();
    // Tiles this batch filled and moved past (a batch may span several): written whole.
    const filled: Array<{ level: number; index: number; hashes: Buffer }> = [];
    for (const l of leaves) {
      if (l.seq !== next.size + 1) throw new Error(`execution log: record seq ${l.seq} does not follow tree size ${next.size}`);
      for (const node of next.append(l.hash)) {
        if (node.height % TILE_HEIGHT !== 0) continue;
        const level = node.height / TILE_HEIGHT;
        const index = Math.floor(node.index / TILE_WIDTH);
        let t = edge.get(level);
        if (t && t.index !== index && touched.has(level)) filled.push({ level, index: t.index, hashes: Buffer.concat(t.hashes) });
        if (!t || t.index !== index) {
          t = { index, hashes: [] };
          edge.set(level, t);
        }
        t.hashes.push(node.hash);
        touched.add(level);
      }
    }
    const state: LogState = { size: next.size, root: next.root(), peaks: Buffer.concat(next.peaks) };
    const tiles = [...touched].map((level) => {
      const t = edge.get(level) as EdgeTile;
      return { level, index: t.index, hashes: Buffer.concat(t.hashes) };
    });
    const ok = await this.#o.storage.pool.transaction((tx) => advanceLog(tx, fromSize, state, [...filled, ...tiles]));
    if (!ok) throw new Error('execution log: the stored tree moved (another writer); reloading');
    this.#rounds += 1;
    this.#tree = next;
    this.#edge = edge;
  }

  #maybeCheckpoint(force: boolean): void {
    const tree = this.#tree;
    if (!tree || !this.#active || (tree.size <= this.#checkpointed && !force)) return;
    const now = (this.#o.clock ?? Date.now)();
    const due = this.#checkpointedAt + this.#o.checkpointEveryMs;
    if (!force && now < due) {
      if (!this.#timer) {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#maybeCheckpoint(false);
        }, due - now);
        this.#timer.unref();
      }
      return;
    }
    this.#checkpointedAt = now;
    this.#checkpointed = tree.size;
    const size = tree.size;
    const note = signNote(formatCheckpoint({ origin: this.#o.origin, size, root: tree.root(), extensions: [] }), [this.#o.signer]);
    void insertCheckpoint(this.#o.storage.pool, { size, root: tree.root(), note, vkey: this.#o.vkey }).then(
      () => this.#o.onCheckpoint?.({ size, note }),
      (err: unknown) => {
        this.#checkpointed = -1;
        this.#o.logger?.warn({ err, size }, 'execution log: checkpoint not stored; signed again at the next round');
      },
    );
  }
}
