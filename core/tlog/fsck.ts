import { sha256Hex } from '../chain/index.ts';
import { HASH_SIZE, leafHash, sameHash } from './hash.ts';
import type { Checkpoint } from './checkpoint.ts';
import { verifyConsistency } from './proof.ts';
import { TILE_HEIGHT, TILE_WIDTH, decodeEntryBundle, tileWidthAt, type TileRef } from './tiles.ts';
import { tilePath } from './layout.ts';
import { CompactTree } from './tree.ts';

/**
 * An fsck of the transparency log, as transparency-dev/tessera's cmd/fsck: the tree is rebuilt from
 * the leaf hashes the log serves (level-0 tiles, and the entries of the bundles when they can be
 * read), every tile above them is recomputed and compared with the one served, and the rebuilt root
 * must be the checkpoint's. The reads are injected (`LogSource`): this file does no I/O, and the
 * rebuild keeps one growing tile per level, so a tree of any size is checked in constant memory.
 */

/** A tile the log must serve as rebuilt from the leaves below it. */
export interface ExpectedTile {
  ref: TileRef;
  hashes: Buffer;
}

/** Rebuilds a tree of `size` leaves from its level-0 tiles, fed in order. */
export class TreeRebuild {
  readonly size: number;
  readonly #tree = new CompactTree();
  /** The growing tile of each level above 0. */
  readonly #open = new Map<number, { index: number; hashes: Buffer[] }>();
  readonly #wanted: ReadonlySet<number>;
  readonly #rootsAt = new Map<number, Buffer>();

  /** `rootsAt`: earlier sizes whose root to keep on the way (to check older checkpoints). */
  constructor(size: number, rootsAt: readonly number[] = []) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`tree size ${size} is not a size`);
    this.size = size;
    this.#wanted = new Set(rootsAt);
  }

  /** The level-0 tiles of the tree, left to right (the last one partial unless size is a multiple of 256). */
  leafTiles(): TileRef[] {
    const out: TileRef[] = [];
    for (let index = 0; index * TILE_WIDTH < this.size; index += 1) out.push({ level: 0, index, width: tileWidthAt(0, index, this.size) });
    return out;
  }

  /** The leaf hashes of the next level-0 tile; answers the full tiles above it this completed, or a reason. */
  push(ref: TileRef, bytes: Uint8Array): ExpectedTile[] | string {
    if (ref.level !== 0 || ref.index * TILE_WIDTH !== this.#tree.size) return `${tilePath(ref)} is not the next level-0 tile`;
    if (bytes.length !== ref.width * HASH_SIZE) return `${tilePath(ref)} holds ${bytes.length} bytes, not ${ref.width} hashes`;
    const done: ExpectedTile[] = [];
    for (let i = 0; i < ref.width; i += 1) {
      for (const node of this.#tree.append(Buffer.from(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)))) {
        if (node.height === 0 || node.height % TILE_HEIGHT !== 0) continue;
        const level = node.height / TILE_HEIGHT;
        const index = Math.floor(node.index / TILE_WIDTH);
        let t = this.#open.get(level);
        if (!t || t.index !== index) {
          t = { index, hashes: [] };
          this.#open.set(level, t);
        }
        t.hashes.push(node.hash);
        if (t.hashes.length === TILE_WIDTH) {
          done.push({ ref: { level, index, width: TILE_WIDTH }, hashes: Buffer.concat(t.hashes) });
          this.#open.delete(level);
        }
      }
      if (this.#wanted.has(this.#tree.size)) this.#rootsAt.set(this.#tree.size, this.#tree.root());
    }
    return done;
  }

  /** Once every leaf is in: the root, the kept earlier roots, and the partial tiles of the right edge above level 0. */
  finish(): { root: Buffer; rootsAt: ReadonlyMap<number, Buffer>; partial: ExpectedTile[] } | string {
    if (this.#tree.size !== this.size) return `rebuilt ${this.#tree.size} of ${this.size} leaves`;
    const partial = [...this.#open].map(([level, t]) => ({ ref: { level, index: t.index, width: t.hashes.length }, hashes: Buffer.concat(t.hashes) }));
    return { root: this.#tree.root(), rootsAt: this.#rootsAt, partial };
  }
}

/**
 * The problems of an entry bundle against the leaf hashes of its level-0 tile: each entry hashes to
 * its leaf; each entry (an export line, `<hash> <signature> <canonical JSON>`) is the record whose
 * seq is its leaf index + 1 and whose content hashes to the hash it names.
 */
export function entryBundleProblems(ref: TileRef, bundle: Uint8Array, leafHashes: Uint8Array): string[] {
  const entries = decodeEntryBundle(bundle);
  if (typeof entries === 'string') return [`${tilePath({ ...ref, level: 'entries' })}: ${entries}`];
  if (entries.length !== ref.width) return [`${tilePath({ ...ref, level: 'entries' })} holds ${entries.length} entries, not ${ref.width}`];
  const problems: string[] = [];
  for (const [i, entry] of entries.entries()) {
    const leafIndex = ref.index * TILE_WIDTH + i;
    if (!sameHash(leafHash(entry), leafHashes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE))) {
      problems.push(`leaf ${leafIndex}: its entry does not hash to the leaf hash the tile serves`);
      continue;
    }
    const text = entry.toString('utf8');
    const [hash, , ...rest] = text.split(' ');
    const canonical = rest.join(' ');
    let seq: unknown;
    try {
      seq = (JSON.parse(canonical) as { seq?: unknown }).seq;
    } catch {
      seq = undefined;
    }
    if (seq !== leafIndex + 1) problems.push(`leaf ${leafIndex}: its entry is record seq ${String(seq)}, not ${leafIndex + 1}`);
    else if (sha256Hex(canonical) !== hash) problems.push(`leaf ${leafIndex}: the record's content does not hash to the hash it names`);
  }
  return problems;
}

/** What an fsck reads; every read is the log's word, checked here. */
export interface LogSource {
  /** A hash tile's bytes as served. */
  tile(ref: TileRef): Promise<Uint8Array>;
  /** An entry bundle's bytes; undefined when it cannot be read (pruned under retention, no credential). */
  entries?(ref: TileRef): Promise<Uint8Array | undefined>;
  /** The consistency proof the log serves from `from` to `to`. */
  consistency(from: number, to: number): Promise<Uint8Array[]>;
}

export interface FsckInput {
  /** The checkpoint to check the tree against (opened: its signature checked by the caller). */
  checkpoint: Checkpoint;
  /** The execution chain's head seq, when known: the log must cover the chain, no more, no less. */
  chainHead?: number;
  /** Checkpoints taken before this one (opened too): each must be a prefix of it. */
  earlier?: readonly Checkpoint[];
  source: LogSource;
}

export interface FsckReport {
  ok: boolean;
  problems: string[];
  size: number;
  /** Hash tiles read: level-0 ones and those above compared with their rebuild. */
  tiles: number;
  /** Entries checked against their leaves (0 without entry bundles). */
  entries: number;
  /** Entry bundles that could not be read (pruned, or no credential). */
  unreadBundles: number;
  /** Earlier checkpoints shown to be prefixes (rebuilt root and served consistency proof). */
  consistentWith: number[];
}

/** Rebuild the tree from what the log serves and check it against the checkpoint (and the chain head, and earlier checkpoints). */
export async function fsckLog(input: FsckInput): Promise<FsckReport> {
  const { checkpoint, source } = input;
  const earlier = input.earlier ?? [];
  const report: FsckReport = { ok: false, problems: [], size: checkpoint.size, tiles: 0, entries: 0, unreadBundles: 0, consistentWith: [] };
  const problems = report.problems;
  if (input.chainHead !== undefined && input.chainHead !== checkpoint.size) {
    problems.push(`the checkpoint's size is ${checkpoint.size}, the chain's head is seq ${input.chainHead}`);
  }
  const rebuild = new TreeRebuild(
    checkpoint.size,
    earlier.map((c) => c.size),
  );
  const compare = async (expected: ExpectedTile) => {
    const served = await source.tile(expected.ref);
    report.tiles += 1;
    if (!expected.hashes.equals(Buffer.from(served))) problems.push(`${tilePath(expected.ref)} differs from the tile rebuilt from the leaves below it`);
  };
  for (const ref of rebuild.leafTiles()) {
    const leaves = await source.tile(ref);
    report.tiles += 1;
    const done = rebuild.push(ref, leaves);
    if (typeof done === 'string') {
      problems.push(done);
      return report;
    }
    if (source.entries) {
      const bundle = await source.entries({ ...ref, level: 'entries' });
      if (bundle === undefined) report.unreadBundles += 1;
      else {
        problems.push(...entryBundleProblems(ref, bundle, leaves));
        report.entries += ref.width;
      }
    }
    for (const t of done) await compare(t);
  }
  const rebuilt = rebuild.finish();
  if (typeof rebuilt === 'string') {
    problems.push(rebuilt);
    return report;
  }
  for (const t of rebuilt.partial) await compare(t);
  if (!sameHash(rebuilt.root, checkpoint.root)) problems.push(`the root rebuilt from the tiles is not the checkpoint's (size ${checkpoint.size})`);
  for (const old of earlier) {
    if (old.size > checkpoint.size) {
      problems.push(`an earlier checkpoint has size ${old.size}, more than the checkpoint's ${checkpoint.size}: the log shrank`);
      continue;
    }
    // The empty tree is a prefix of every tree (no proof exists from it: RFC 9162 §2.1.4).
    if (old.size === 0) {
      report.consistentWith.push(0);
      continue;
    }
    if (!sameHash(rebuilt.rootsAt.get(old.size), old.root))
      problems.push(`the tree rebuilt at size ${old.size} is not the earlier checkpoint's: history was rewritten`);
    const proof = old.size === checkpoint.size ? [] : await source.consistency(old.size, checkpoint.size);
    if (!verifyConsistency(old.size, checkpoint.size, proof, old.root, checkpoint.root)) {
      problems.push(`the consistency proof from size ${old.size} to ${checkpoint.size} does not verify`);
    } else report.consistentWith.push(old.size);
  }
  report.ok = problems.length === 0;
  return report;
}
