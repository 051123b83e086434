import { isTreeIndex } from './hash.ts';
import { MAX_TILE_LEVEL, TILE_WIDTH, type TileRef } from './tiles.ts';

/**
 * Where each part of the log is (C2SP tlog-tiles, like tessera's api/layout): the one module the
 * routes that serve the log and every reader of it (`suite verify --log`, the tests' fsck) take paths
 * from, so writer and readers cannot disagree on a tile's name.
 */

/** The log's prefix on the token listener: every path below is under it. */
export const LOG_PREFIX = '/executions/log';

/** The paths of the log's resources, each under {@link LOG_PREFIX}. */
export const logPaths = {
  /** The latest signed checkpoint (a note, text). */
  checkpoint: `${LOG_PREFIX}/checkpoint`,
  /** The log's verifier key (a vkey line). */
  vkey: `${LOG_PREFIX}/vkey`,
  /** A consistency proof between two tree sizes (JSON). */
  consistency: (from: number, to: number) => `${LOG_PREFIX}/consistency?from=${from}&to=${to}`,
  /** A hash tile or an entry bundle. */
  tile: (t: TileRef) => `${LOG_PREFIX}/${tilePath(t)}`,
  /** The routes' patterns: a hash tile and an entry bundle, what follows `tile/` in one wildcard. */
  tileRoute: `${LOG_PREFIX}/tile/*`,
  entriesRoute: `${LOG_PREFIX}/tile/entries/*`,
} as const;

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
  if (before?.endsWith('.p')) {
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
