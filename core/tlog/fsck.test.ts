import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../chain/index.ts';
import {
  CompactTree,
  TILE_HEIGHT,
  TILE_WIDTH,
  consistencyProof,
  encodeEntryBundle,
  fsckLog,
  leafHash,
  nodeReaderFromTiles,
  tileWidthAt,
  type Checkpoint,
  type LogSource,
  type TileRef,
} from './index.ts';

/** A log of `size` entries built the way the maintainer does (nodes at tile heights into tiles), and its checkpoints. */
function makeLog(size: number) {
  const entries = Array.from({ length: size }, (_, i) => {
    const canonical = JSON.stringify({ seq: i + 1, n: i });
    return Buffer.from(`${sha256Hex(canonical)} c2ln ${canonical}`);
  });
  const tiles = new Map<string, Buffer[]>();
  const tree = new CompactTree();
  const roots = new Map<number, Buffer>();
  for (const e of entries) {
    for (const node of tree.append(leafHash(e))) {
      if (node.height % TILE_HEIGHT !== 0) continue;
      const key = `${node.height / TILE_HEIGHT}/${Math.floor(node.index / TILE_WIDTH)}`;
      tiles.set(key, [...(tiles.get(key) ?? []), node.hash]);
    }
    roots.set(tree.size, tree.root());
  }
  const bytes = new Map([...tiles].map(([k, v]) => [k, Buffer.concat(v)]));
  const checkpoint = (n: number): Checkpoint => ({ origin: 'test/log', size: n, root: roots.get(n) as Buffer, extensions: [] });
  const source: LogSource & { tiles: Map<string, Buffer>; entryList: Buffer[] } = {
    tiles: bytes,
    entryList: entries,
    async tile(ref: TileRef) {
      const t = bytes.get(`${ref.level}/${ref.index}`);
      if (!t || t.length < ref.width * 32) throw new Error(`no tile ${ref.level}/${ref.index}`);
      return t.subarray(0, ref.width * 32);
    },
    async entries(ref: TileRef) {
      return encodeEntryBundle(entries.slice(ref.index * TILE_WIDTH, ref.index * TILE_WIDTH + ref.width));
    },
    async consistency(from: number, to: number) {
      return consistencyProof(
        from,
        to,
        nodeReaderFromTiles((l, i) => bytes.get(`${l}/${i}`)),
      );
    },
  };
  return { source, checkpoint };
}

describe('the fsck of a transparency log (tessera cmd/fsck)', () => {
  // 70,000 leaves: three tile levels, partial tiles on every level's right edge.
  const SIZE = 70_000;
  const log = makeLog(SIZE);

  it("a log served as built checks: every tile above level 0 rebuilt, the root the checkpoint's, earlier checkpoints prefixes", async () => {
    const report = await fsckLog({
      checkpoint: log.checkpoint(SIZE),
      chainHead: SIZE,
      earlier: [log.checkpoint(1), log.checkpoint(256), log.checkpoint(65_537), log.checkpoint(SIZE)],
      source: log.source,
    });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    // 274 level-0 tiles, 2 level-1 tiles (one full, one partial), 1 partial level-2 tile.
    expect(report.tiles).toBe(Math.ceil(SIZE / 256) + 2 + 1);
    expect(tileWidthAt(2, 0, SIZE)).toBe(1);
    expect(report.entries).toBe(SIZE);
    expect(report.consistentWith).toEqual([1, 256, 65_537, SIZE]);
  });

  it('a checkpoint whose size is not the chain head fails', async () => {
    const report = await fsckLog({ checkpoint: log.checkpoint(SIZE - 1), chainHead: SIZE, source: log.source });
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([`the checkpoint's size is ${SIZE - 1}, the chain's head is seq ${SIZE}`]);
  });

  it("a checkpoint whose root is not the tree's fails", async () => {
    const report = await fsckLog({ checkpoint: { ...log.checkpoint(SIZE), root: log.checkpoint(SIZE - 1).root }, source: log.source });
    expect(report.problems).toEqual([`the root rebuilt from the tiles is not the checkpoint's (size ${SIZE})`]);
  });

  it('a level-1 tile that is not the hashes of the tiles below it fails, named by its path', async () => {
    const { source, checkpoint } = makeLog(600);
    const t = source.tiles.get('1/0') as Buffer;
    source.tiles.set('1/0', Buffer.concat([t.subarray(0, 32), Buffer.alloc(32, 7)]));
    const report = await fsckLog({ checkpoint: checkpoint(600), source });
    expect(report.problems).toEqual(['tile/1/000.p/2 differs from the tile rebuilt from the leaves below it']);
  });

  it('a leaf hash changed in its tile fails on its entry and on the root', async () => {
    const { source, checkpoint } = makeLog(300);
    const cp = checkpoint(300);
    (source.tiles.get('0/1') as Buffer).fill(9, 5 * 32, 6 * 32);
    const report = await fsckLog({ checkpoint: cp, source });
    expect(report.problems).toEqual([
      'leaf 261: its entry does not hash to the leaf hash the tile serves',
      "the root rebuilt from the tiles is not the checkpoint's (size 300)",
    ]);
  });

  it('entries out of place or whose content is not their hash fail', async () => {
    const { source, checkpoint } = makeLog(10);
    const swapped = { ...source, entries: async (ref: TileRef) => encodeEntryBundle([...source.entryList.slice(0, ref.width)].reverse()) };
    expect((await fsckLog({ checkpoint: checkpoint(10), source: swapped })).problems[0]).toBe(
      'leaf 0: its entry does not hash to the leaf hash the tile serves',
    );
    // A log whose leaves commit to entries naming another seq (a log of some other chain's order).
    const other = makeLog(2);
    const shifted = {
      ...other.source,
      entries: async () => encodeEntryBundle(other.source.entryList.map((e) => Buffer.from(e.toString().replace('"seq":1', '"seq":5')))),
    };
    const report = await fsckLog({ checkpoint: other.checkpoint(2), source: shifted });
    expect(report.problems).toEqual(['leaf 0: its entry does not hash to the leaf hash the tile serves']);
  });

  it('an earlier checkpoint of a forked history fails twice: the rebuilt root and the consistency proof', async () => {
    const fork = makeLog(400);
    const forked = { ...fork.checkpoint(300), root: Buffer.alloc(32, 1) };
    const report = await fsckLog({ checkpoint: fork.checkpoint(400), earlier: [forked], source: fork.source });
    expect(report.problems).toEqual([
      "the tree rebuilt at size 300 is not the earlier checkpoint's: history was rewritten",
      'the consistency proof from size 300 to 400 does not verify',
    ]);
  });

  it('a served consistency proof that does not verify fails even when the tiles are right', async () => {
    const { source, checkpoint } = makeLog(400);
    const lying = { ...source, consistency: async (from: number, to: number) => (await source.consistency(from, to)).reverse() };
    const report = await fsckLog({ checkpoint: checkpoint(400), earlier: [checkpoint(300)], source: lying });
    expect(report.problems).toEqual(['the consistency proof from size 300 to 400 does not verify']);
  });

  it('an earlier checkpoint larger than the current one says the log shrank; a tile cut short is named', async () => {
    const { source, checkpoint } = makeLog(300);
    expect((await fsckLog({ checkpoint: checkpoint(200), earlier: [checkpoint(300)], source })).problems).toEqual([
      "an earlier checkpoint has size 300, more than the checkpoint's 200: the log shrank",
    ]);
    const short = { ...source, tile: async (ref: TileRef) => (await source.tile(ref)).subarray(0, 32) };
    expect((await fsckLog({ checkpoint: checkpoint(300), source: short })).problems).toEqual(['tile/0/000 holds 32 bytes, not 256 hashes']);
  });

  it('unreadable entry bundles (pruned, or no credential) are counted, not failed', async () => {
    const { source, checkpoint } = makeLog(300);
    const report = await fsckLog({ checkpoint: checkpoint(300), source: { ...source, entries: async () => undefined } });
    expect(report).toMatchObject({ ok: true, entries: 0, unreadBundles: 2 });
    expect(
      (
        await fsckLog({
          checkpoint: { ...checkpoint(1), size: 0, root: Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex') },
          source,
        })
      ).ok,
    ).toBe(true);
  });
});
