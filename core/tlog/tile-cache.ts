import { HASH_SIZE, nodeHash } from './hash.ts';
import { nodesRead, type NodeReader } from './proof.ts';
import { TILE_HEIGHT, TILE_WIDTH } from './tiles.ts';
import { perfectRoot } from './tree.ts';

type TileCoordinates = { level: number; index: number };
/** Answers the stored hashes of the given tiles (as many as are known), keyed `level/index`. */
export type TileFetch = (tiles: TileCoordinates[]) => Promise<ReadonlyMap<string, Uint8Array>>;

const FULL_TILE_BYTES = TILE_WIDTH * HASH_SIZE;
/** A full tile with its nodes rebuilt: 256 + 128 + … + 2 hashes (heights 0 to 7 within it). */
const REBUILT_HASHES = 2 * TILE_WIDTH - 2;

/**
 * The nodes proofs read, kept across proofs. tlog-tiles stores every 8th level of the tree; a node
 * between two of them is rebuilt by hashing the tile below it (a node 7 levels up is 127 hashes), and
 * a proof at a million leaves reads about twenty such nodes. Every node of a perfect subtree is fixed
 * once its leaves are in an append-only log, so nothing kept here goes stale:
 * - a full tile is kept with all its nodes rebuilt once (254 hashes, 16 KB), so a proof reads any
 *   of them by offset, and needs no query for it;
 * - a node read out of a partial tile (the tree's right edge, which every proof at one size reads)
 *   is kept by its coordinates, so the partial tile is queried again only for nodes not yet seen.
 * Level-0 tiles are kept apart from the upper ones, so many random leaves never push out the upper
 * levels every proof shares.
 */
export class TileNodeCache {
  readonly #leafTiles = new Map<string, Buffer>();
  readonly #upperTiles = new Map<string, Buffer>();
  readonly #nodes = new Map<string, Buffer>();
  readonly #max: { leafTiles: number; upperTiles: number; nodes: number };

  /** Defaults: 1,024 level-0 and 1,024 upper tiles (16 MB each at most), 4,096 edge nodes (128 KB). */
  constructor(max: Partial<{ leafTiles: number; upperTiles: number; nodes: number }> = {}) {
    this.#max = { leafTiles: 1024, upperTiles: 1024, nodes: 4096, ...max };
  }

  /**
   * A reader for the nodes `build` reads: those kept here, plus the tiles holding the others, fetched
   * in one call. What the reader holds is its own: tiles pushed out meanwhile (by concurrent proofs)
   * are still there for it.
   */
  async reader(build: (read: NodeReader) => unknown, fetch: TileFetch): Promise<NodeReader> {
    const known = new Map<string, Buffer>();
    const rebuilt = new Map<string, Buffer>();
    const wanted = new Map<string, TileCoordinates>();
    for (const n of nodesRead(build)) {
      const node = this.#nodes.get(`${n.height}/${n.index}`);
      if (node) {
        known.set(`${n.height}/${n.index}`, node);
        continue;
      }
      const at = place(n.height, n.index);
      const tile = this.#tiles(at.level).get(at.key);
      if (tile) rebuilt.set(at.key, tile);
      else wanted.set(at.key, { level: at.level, index: at.tileIndex });
    }
    const fetched = wanted.size > 0 ? await fetch([...wanted.values()]) : new Map<string, Uint8Array>();
    for (const [key, bytes] of fetched) {
      if (bytes.length !== FULL_TILE_BYTES) continue;
      const tile = rebuildTile(bytes);
      rebuilt.set(key, tile);
      this.#keep(this.#tiles(Number(key.slice(0, key.indexOf('/')))), key, tile, key.startsWith('0/') ? this.#max.leafTiles : this.#max.upperTiles);
    }
    return (height, index) => {
      const node = known.get(`${height}/${index}`);
      if (node) return node;
      const at = place(height, index);
      const tile = rebuilt.get(at.key);
      if (tile) {
        const from = (2 * TILE_WIDTH - ((2 * TILE_WIDTH) >> at.height) + (at.offset >> at.height)) * HASH_SIZE;
        return Buffer.from(tile.subarray(from, from + HASH_SIZE));
      }
      const bytes = fetched.get(at.key);
      const span = 2 ** at.height;
      if (!bytes || bytes.length < (at.offset + span) * HASH_SIZE) throw new RangeError(`tile ${at.key} does not hold node ${height}/${index}`);
      const hashes: Buffer[] = [];
      for (let i = at.offset; i < at.offset + span; i += 1) hashes.push(Buffer.from(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)));
      const made = span === 1 ? (hashes[0] as Buffer) : perfectRoot(hashes);
      this.#keep(this.#nodes, `${height}/${index}`, made, this.#max.nodes);
      return made;
    };
  }

  #tiles(level: number): Map<string, Buffer> {
    return level === 0 ? this.#leafTiles : this.#upperTiles;
  }

  #keep(map: Map<string, Buffer>, key: string, value: Buffer, max: number): void {
    if (max <= 0) return;
    map.set(key, value);
    if (map.size > max) map.delete(map.keys().next().value as string);
  }
}

/** Where node (height, index) lives: its tile, its height within the tile, its first hash's offset there. */
function place(height: number, index: number): { level: number; tileIndex: number; key: string; height: number; offset: number } {
  const level = Math.floor(height / TILE_HEIGHT);
  const within = height - level * TILE_HEIGHT;
  const first = index * 2 ** within;
  const tileIndex = Math.floor(first / TILE_WIDTH);
  return { level, tileIndex, key: `${level}/${tileIndex}`, height: within, offset: first % TILE_WIDTH };
}

/** A full tile's 256 hashes, then each height's nodes above them up to 7: one buffer, read by offset. */
function rebuildTile(bytes: Uint8Array): Buffer {
  const out = Buffer.alloc(REBUILT_HASHES * HASH_SIZE);
  out.set(bytes.subarray(0, FULL_TILE_BYTES));
  let below = 0;
  for (let width = TILE_WIDTH / 2; width >= 2; width /= 2) {
    const at = below + width * 2;
    for (let q = 0; q < width; q += 1) {
      const l = (below + 2 * q) * HASH_SIZE;
      out.set(nodeHash(out.subarray(l, l + HASH_SIZE), out.subarray(l + HASH_SIZE, l + 2 * HASH_SIZE)), (at + q) * HASH_SIZE);
    }
    below = at;
  }
  return out;
}
