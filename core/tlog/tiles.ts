import { HASH_SIZE } from './hash.ts';
import type { NodeReader, NodeRef } from './proof.ts';
import { perfectRoot } from './tree.ts';

/** C2SP tlog-tiles: tiles are 8 levels of the tree, 256 hashes wide. */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** Highest level the spec allows (`<L>` is 0 to 63). */
export const MAX_TILE_LEVEL = 63;

/** A hash tile (`level` a number) or an entry bundle (`level` 'entries'); `width` below 256 is a partial one. */
export interface TileRef {
  level: number | 'entries';
  index: number;
  width: number;
}

/**
 * How many hashes tile (level, index) has in the tree of `size` leaves: 256 when full, fewer when it
 * is the partial one on the right edge, 0 when the tree does not reach it. Entry bundles are level 0.
 */
export function tileWidthAt(level: number, index: number, size: number): number {
  const nodes = Math.floor(size / TILE_WIDTH ** level);
  const start = index * TILE_WIDTH;
  if (nodes <= start) return 0;
  return Math.min(TILE_WIDTH, nodes - start);
}

/** The tiles (level, index) holding the given nodes. */
export function tilesOfNodes(nodes: readonly NodeRef[]): Array<{ level: number; index: number }> {
  const seen = new Map<string, { level: number; index: number }>();
  for (const n of nodes) {
    const level = Math.floor(n.height / TILE_HEIGHT);
    const first = n.index * 2 ** (n.height - level * TILE_HEIGHT);
    const index = Math.floor(first / TILE_WIDTH);
    seen.set(`${level}/${index}`, { level, index });
  }
  return [...seen.values()];
}

/**
 * Reads nodes out of tiles: a node at a height between two tile levels is rebuilt from the hashes
 * of the tile below it (tlog-tiles: "levels between those expressed by the tile hashes are
 * reconstructed by hashing"). `tile` answers a tile's hashes (concatenated), as many as are known.
 */
export function nodeReaderFromTiles(tile: (level: number, index: number) => Uint8Array | undefined): NodeReader {
  return (height, index) => {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height - level * TILE_HEIGHT);
    const first = index * span;
    const tileIndex = Math.floor(first / TILE_WIDTH);
    const offset = first % TILE_WIDTH;
    const bytes = tile(level, tileIndex);
    if (!bytes || bytes.length < (offset + span) * HASH_SIZE) throw new RangeError(`tile ${level}/${tileIndex} does not hold node ${height}/${index}`);
    const hashes: Buffer[] = [];
    for (let i = offset; i < offset + span; i += 1) hashes.push(Buffer.from(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)));
    return span === 1 ? (hashes[0] as Buffer) : perfectRoot(hashes);
  };
}

/** An entry bundle: each entry as a big-endian uint16 length, then its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (e.length > 0xffff) throw new RangeError(`an entry of ${e.length} bytes does not fit a bundle`);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(e.length);
    parts.push(len, Buffer.from(e));
  }
  return Buffer.concat(parts);
}

/** The entries of a bundle, or a reason when it is cut short. */
export function decodeEntryBundle(bundle: Uint8Array): Buffer[] | string {
  const out: Buffer[] = [];
  const b = Buffer.from(bundle.buffer, bundle.byteOffset, bundle.length);
  let at = 0;
  while (at < b.length) {
    if (at + 2 > b.length) return 'entry bundle cut inside a length';
    const len = b.readUInt16BE(at);
    if (at + 2 + len > b.length) return 'entry bundle cut inside an entry';
    out.push(Buffer.from(b.subarray(at + 2, at + 2 + len)));
    at += 2 + len;
  }
  return out;
}
