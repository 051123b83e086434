import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompactTree, consistencyProof, inclusionProof, leafHash, nodeReaderFromTiles, TILE_WIDTH, type NodeReader } from './index.ts';
import { TileNodeCache, type TileFetch } from './tile-cache.ts';

/** Tiles of a tree grown leaf by leaf, as the maintainer writes them; `fetch` counts what it is asked. */
function growingLog() {
  const tree = new CompactTree();
  const tiles = new Map<string, Buffer>();
  const asked: string[] = [];
  return {
    tree,
    tiles,
    asked,
    append(entry: Buffer) {
      for (const n of tree.append(leafHash(entry))) {
        if (n.height % 8 !== 0) continue;
        const key = `${n.height / 8}/${Math.floor(n.index / TILE_WIDTH)}`;
        tiles.set(key, Buffer.concat([tiles.get(key) ?? Buffer.alloc(0), n.hash]));
      }
    },
    fetch: (async (wanted) => {
      const out = new Map<string, Buffer>();
      for (const t of wanted) {
        asked.push(`${t.level}/${t.index}`);
        const hashes = tiles.get(`${t.level}/${t.index}`);
        // A copy, as a database answers: the cache must not rely on the bytes staying the same object.
        if (hashes) out.set(`${t.level}/${t.index}`, Buffer.from(hashes));
      }
      return out;
    }) satisfies TileFetch,
  };
}

const plain = (tiles: Map<string, Buffer>): NodeReader => nodeReaderFromTiles((l, x) => tiles.get(`${l}/${x}`));

describe('the tile node cache', () => {
  it('gives the published transparency-dev inclusion proofs over the RFC 6962 test leaves', async () => {
    const vectors = JSON.parse(readFileSync(new URL('./fixtures/transparency-dev-merkle.json', import.meta.url), 'utf8')) as {
      inclusion: Array<{ file: string; leafIdx: number; treeSize: number; proof: string[] | null; wantErr: boolean }>;
    };
    const log = growingLog();
    for (const h of ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']) log.append(Buffer.from(h, 'hex'));
    const cache = new TileNodeCache();
    const valid = vectors.inclusion.filter((v) => !v.wantErr && v.treeSize <= 8 && v.leafIdx < v.treeSize);
    expect(valid.length).toBeGreaterThan(4);
    for (const v of valid) {
      const build = (r: NodeReader) => inclusionProof(v.leafIdx, v.treeSize, r);
      const read = await cache.reader(build, log.fetch);
      expect(
        build(read).map((p) => p.toString('base64')),
        v.file,
      ).toEqual(v.proof ?? []);
    }
  });

  it('answers the same proofs as the tiles read directly while the tree grows past full tiles of two levels', async () => {
    const log = growingLog();
    const cache = new TileNodeCache();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // 66,000 leaves: level-0 tiles fill one after another, level-1 tile 0 fills at 65,536.
    const checkAt = new Set([1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 4096, 65_535, 65_536, 65_537, 66_000]);
    for (let i = 0; i < 66_000; i += 1) {
      log.append(Buffer.from(`entry ${i}`));
      const size = log.tree.size;
      if (!checkAt.has(size) && size % 997 !== 0) continue;
      for (let k = 0; k < 4; k += 1) {
        const leaf = k === 0 ? size - 1 : random(size);
        const from = 1 + random(size);
        const inclusion = (r: NodeReader) => inclusionProof(leaf, size, r);
        const consistency = (r: NodeReader) => consistencyProof(from, size, r);
        expect(inclusion(await cache.reader(inclusion, log.fetch)), `leaf ${leaf} at ${size}`).toEqual(inclusion(plain(log.tiles)));
        expect(consistency(await cache.reader(consistency, log.fetch)), `${from} to ${size}`).toEqual(consistency(plain(log.tiles)));
      }
    }
  });

  it('a proof whose tiles and edge nodes are kept queries nothing', async () => {
    const log = growingLog();
    for (let i = 0; i < 70_000; i += 1) log.append(Buffer.from(`entry ${i}`));
    const cache = new TileNodeCache();
    const build = (r: NodeReader) => inclusionProof(1234, 70_000, r);
    build(await cache.reader(build, log.fetch));
    expect(log.asked.length).toBeGreaterThan(0);
    log.asked.length = 0;
    expect(build(await cache.reader(build, log.fetch))).toEqual(build(plain(log.tiles)));
    expect(log.asked).toEqual([]);
    // Another leaf of the same level-0 tile: still nothing to read.
    const next = (r: NodeReader) => inclusionProof(1200, 70_000, r);
    expect(next(await cache.reader(next, log.fetch))).toEqual(next(plain(log.tiles)));
    expect(log.asked).toEqual([]);
    // A leaf elsewhere reads its own level-0 tile only: the upper levels and the right edge are kept.
    const far = (r: NodeReader) => inclusionProof(40_000, 70_000, r);
    expect(far(await cache.reader(far, log.fetch))).toEqual(far(plain(log.tiles)));
    expect(log.asked).toEqual([`0/${Math.floor(40_000 / TILE_WIDTH)}`]);
  });

  it('a reader keeps the tiles it was given when other proofs push them out of the cache', async () => {
    const log = growingLog();
    for (let i = 0; i < 2_000; i += 1) log.append(Buffer.from(`entry ${i}`));
    const cache = new TileNodeCache({ leafTiles: 1, upperTiles: 1, nodes: 1 });
    const first = (r: NodeReader) => inclusionProof(10, 2_000, r);
    const read = await cache.reader(first, log.fetch);
    for (const leaf of [300, 700, 1_100, 1_999]) await cache.reader((r) => inclusionProof(leaf, 2_000, r), log.fetch);
    expect(first(read)).toEqual(first(plain(log.tiles)));
  });
});
