import { HASH_SIZE, isTreeIndex } from './hash.ts';
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

/** `<N>` as zero-padded 3-digit path elements, all but the last prefixed with `x` (1234067 → x001/x234/067). */
export function tileIndexPath(index: number): string {
  if (!isTreeIndex(index)) throw new RangeError(`tile index ${index} is not an index`);
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

/** The path of a tile under the log's prefix: `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`. */
export function tilePath(t: TileRef): string {
  const partial = t.width < TILE_WIDTH ? `.p/${t.width}` : '';
  return `tile/${t.level}/${tileIndexPath(t.index)}${partial}`;
}

/**
 * Parse what follows `tile/` in a request path. Strict, as the spec is (no extra leading zeroes, a
 * width from 1 to 255): one resource has one path, so caches never hold two copies. Answers a
 * reason in words when the path is not a tile's.
 */
export function parseTilePath(rest: string): TileRef | string {
  const parts = rest.split('/');
  const levelText = parts.shift() ?? '';
  let level: number | 'entries';
  if (levelText === 'entries') level = 'entries';
  else if (/^(0|[1-9][0-9]?)$/.test(levelText) && Number(levelText) <= MAX_TILE_LEVEL) level = Number(levelText);
  else return `tile level must be 0 to 63 or "entries", not "${levelText}"`;
  let width = TILE_WIDTH;
  const before = parts[parts.length - 2];
  if (before !== undefined && before.endsWith('.p')) {
    const w = parts.pop() as string;
    if (!/^[1-9][0-9]{0,2}$/.test(w) || Number(w) > 255) return 'a partial tile ends in .p/<W>, W from 1 to 255';
    width = Number(w);
    parts[parts.length - 1] = before.slice(0, -2);
  }
  const groups = parts;
  if (groups.length === 0 || groups.length > 6) return 'tile index must be 1 to 6 path elements';
  let index = 0;
  for (const [i, g] of groups.entries()) {
    const isLast = i === groups.length - 1;
    const m = (isLast ? /^([0-9]{3})$/ : /^x([0-9]{3})$/).exec(g);
    if (!m) return `tile index element "${g}" must be ${isLast ? 'three digits' : 'x and three digits'}`;
    index = index * 1000 + Number(m[1]);
  }
  // "x000/001" would name tile 1 a second way: the leading elements must not be zero.
  if (groups.length > 1 && groups[0] === 'x000') return 'tile index has a leading zero element';
  if (!Number.isSafeInteger(index)) return 'tile index is too large';
  return { level, index, width };
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
