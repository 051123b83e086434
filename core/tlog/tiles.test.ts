import { describe, expect, it } from 'vitest';
import {
  CompactTree,
  decodeEntryBundle,
  encodeEntryBundle,
  leafHash,
  nodeReaderFromTiles,
  parseTilePath,
  rangeHash,
  tileIndexPath,
  tilePath,
  tileWidthAt,
  TILE_WIDTH,
} from './index.ts';

describe('tile coordinates and paths (C2SP tlog-tiles)', () => {
  it('tile indexes are written as x-prefixed three-digit groups, as the spec shows', () => {
    expect(tileIndexPath(1234067)).toBe('x001/x234/067');
    expect(tileIndexPath(0)).toBe('000');
    expect(tileIndexPath(999)).toBe('999');
    expect(tileIndexPath(1000)).toBe('x001/000');
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 'entries', index: 5, width: 17 })).toBe('tile/entries/005.p/17');
  });

  it('paths parse back to the tile they name', () => {
    expect(parseTilePath('0/x001/x234/067')).toEqual({ level: 0, index: 1234067, width: 256 });
    expect(parseTilePath('2/000.p/1')).toEqual({ level: 2, index: 0, width: 1 });
    expect(parseTilePath('entries/x001/000.p/255')).toEqual({ level: 'entries', index: 1000, width: 255 });
  });

  it('wrong or truncated tile paths are refused with a reason', () => {
    for (const bad of [
      '',
      '0',
      '0/',
      '0/1',
      '0/01',
      '0/0001',
      '0/x001',
      '0/001/002',
      '00/000',
      '64/000',
      'x/000',
      '0/000.p/0',
      '0/000.p/256',
      '0/000.p/07',
      '0/000.p/',
      '0/000.p',
      '0/x000/001',
      'entries/000.p/1/2',
      '0/x1234/000',
      '-1/000',
      '0/000/',
    ]) {
      expect(typeof parseTilePath(bad), bad).toBe('string');
    }
  });

  it('the tiles of a tree of 70,000 leaves are those the spec lists', () => {
    // tlog-tiles: 273 full level-0 tiles, a partial one of 112, one full level-1 tile, a partial one of 17, a partial level-2 tile of 1.
    expect(tileWidthAt(0, 272, 70000)).toBe(256);
    expect(tileWidthAt(0, 273, 70000)).toBe(112);
    expect(tileWidthAt(0, 274, 70000)).toBe(0);
    expect(tileWidthAt(1, 0, 70000)).toBe(256);
    expect(tileWidthAt(1, 1, 70000)).toBe(17);
    expect(tileWidthAt(2, 0, 70000)).toBe(1);
    expect(tileWidthAt(3, 0, 70000)).toBe(0);
  });
});

describe('nodes read from tiles', () => {
  it('tiles built from a tree give back its root at every size from 1 to 600', () => {
    const tree = new CompactTree();
    const tiles = new Map<string, Buffer>();
    for (let i = 0; i < 600; i += 1) {
      for (const n of tree.append(leafHash(Buffer.from(`e${i}`)))) {
        if (n.height % 8 !== 0) continue;
        const key = `${n.height / 8}/${Math.floor(n.index / TILE_WIDTH)}`;
        tiles.set(key, Buffer.concat([tiles.get(key) ?? Buffer.alloc(0), n.hash]));
      }
      const read = nodeReaderFromTiles((l, x) => tiles.get(`${l}/${x}`));
      expect(rangeHash(0, tree.size, read)).toEqual(tree.root());
    }
  });

  it('an entry bundle round-trips, and a cut bundle is refused', () => {
    const entries = [Buffer.from('one'), Buffer.alloc(0), Buffer.alloc(700, 7)];
    const bundle = encodeEntryBundle(entries);
    expect(decodeEntryBundle(bundle)).toEqual(entries);
    expect(typeof decodeEntryBundle(bundle.subarray(0, bundle.length - 1))).toBe('string');
    expect(typeof decodeEntryBundle(bundle.subarray(0, 1))).toBe('string');
  });
});
