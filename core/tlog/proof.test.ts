import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompactTree, EMPTY_ROOT, consistencyProof, inclusionProof, leafHash, nodeHash, verifyConsistency, verifyInclusion, type NodeReader } from './index.ts';

/**
 * Published vectors: transparency-dev/merkle testdata/inclusion and testdata/consistency (Apache-2.0,
 * commit named in the fixture's `source`), built over the eight RFC 6962 test leaves below
 * (transparency-dev/merkle testonly/constants.go LeafInputs, whose level-3 node is the root below).
 */
const vectors = JSON.parse(readFileSync(new URL('./fixtures/transparency-dev-merkle.json', import.meta.url), 'utf8')) as {
  inclusion: Array<{ file: string; leafIdx: number; treeSize: number; root: string; leafHash: string; proof: string[] | null; wantErr: boolean }>;
  consistency: Array<{ file: string; size1: number; size2: number; root1: string; root2: string; proof: string[] | null; wantErr: boolean }>;
};
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
const b64 = (s: string) => Buffer.from(s, 'base64');

/** A reference tree kept as every node of every level, built by the incremental tree under test. */
function buildTree(leaves: readonly Buffer[]): { tree: CompactTree; read: NodeReader; roots: Buffer[] } {
  const tree = new CompactTree();
  const nodes = new Map<string, Buffer>();
  const roots: Buffer[] = [EMPTY_ROOT];
  for (const l of leaves) {
    for (const n of tree.append(leafHash(l))) nodes.set(`${n.height}/${n.index}`, n.hash);
    roots.push(tree.root());
  }
  const read: NodeReader = (h, i) => {
    const n = nodes.get(`${h}/${i}`);
    if (!n) throw new Error(`no node ${h}/${i}`);
    return n;
  };
  return { tree, read, roots };
}

/** MTH by the RFC's recursive definition, as a second opinion on the incremental tree. */
function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leafHash(leaves[0] as Buffer);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

describe('RFC 6962 tree and proofs against published vectors', () => {
  const { read, roots } = buildTree(LEAVES);

  it('the incremental tree gives the RFC 6962 root of the eight test leaves, and every smaller root', () => {
    expect(roots[8]?.toString('hex')).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328');
    for (let n = 0; n <= 8; n += 1) expect(roots[n]).toEqual(mth(LEAVES.slice(0, n)));
  });

  it('every published inclusion vector verifies or fails exactly as published', () => {
    expect(vectors.inclusion.length).toBeGreaterThan(90);
    for (const v of vectors.inclusion) {
      const ok = verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root));
      expect(ok, v.file).toBe(!v.wantErr);
    }
  });

  it('every published consistency vector verifies or fails exactly as published', () => {
    expect(vectors.consistency.length).toBeGreaterThan(90);
    for (const v of vectors.consistency) {
      const ok = verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2));
      expect(ok, v.file).toBe(!v.wantErr);
    }
  });

  it('the proofs generated from stored nodes are the published happy-path proofs', () => {
    const happy = vectors.inclusion.filter((v) => !v.wantErr && v.treeSize <= 8 && v.treeSize > 0 && roots[v.treeSize]?.equals(b64(v.root)));
    expect(happy.length).toBeGreaterThan(3);
    for (const v of happy)
      expect(
        inclusionProof(v.leafIdx, v.treeSize, read).map((p) => p.toString('base64')),
        v.file,
      ).toEqual(v.proof ?? []);
    const happyC = vectors.consistency.filter((v) => !v.wantErr && v.size2 <= 8 && v.size1 > 0 && roots[v.size2]?.equals(b64(v.root2)));
    expect(happyC.length).toBeGreaterThan(3);
    for (const v of happyC)
      expect(
        consistencyProof(v.size1, v.size2, read).map((p) => p.toString('base64')),
        v.file,
      ).toEqual(v.proof ?? []);
  });
});

describe('proofs over larger trees, generated and verified both ways', () => {
  const leaves = Array.from({ length: 300 }, (_, i) => Buffer.from(`entry ${i}`));
  const { read, roots } = buildTree(leaves);

  it('every leaf of trees up to 300 leaves proves its inclusion in every tree that holds it', () => {
    for (const size of [1, 2, 3, 7, 8, 9, 255, 256, 257, 300]) {
      for (let i = 0; i < size; i += size > 20 ? 7 : 1) {
        const proof = inclusionProof(i, size, read);
        expect(verifyInclusion(i, size, leafHash(leaves[i] as Buffer), proof, roots[size] as Buffer)).toBe(true);
      }
    }
  });

  it('every pair of sizes has a consistency proof that verifies', () => {
    for (const from of [1, 2, 3, 4, 5, 127, 128, 129, 256, 299]) {
      for (const to of [from, from + 1, 256, 257, 300].filter((t) => t >= from && t <= 300)) {
        expect(verifyConsistency(from, to, consistencyProof(from, to, read), roots[from] as Buffer, roots[to] as Buffer), `${from}→${to}`).toBe(true);
      }
    }
  });
});

describe('adversarial proofs are refused', () => {
  const leaves = Array.from({ length: 70 }, (_, i) => Buffer.from(`entry ${i}`));
  const { read, roots } = buildTree(leaves);
  const root = roots[70] as Buffer;
  const proof = inclusionProof(37, 70, read);
  const leaf = leafHash(leaves[37] as Buffer);

  // A path pins the size only as far as its shape (37 in 70 and in 71 take the same path): the size a
  // client checks at is always the one its signed checkpoint binds to the root.
  it('an inclusion proof checked at a size of another shape, a wrong index or against another root fails', () => {
    expect(verifyInclusion(37, 70, leaf, proof, root)).toBe(true);
    for (const size of [37, 38, 64, 0, 2 ** 60]) expect(verifyInclusion(37, size, leaf, proof, root)).toBe(false);
    for (const index of [36, 38, 70, -1, 2 ** 60]) expect(verifyInclusion(index, 70, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(37, 70, leaf, proof, roots[69] as Buffer)).toBe(false);
  });

  it('a truncated, extended, reordered or bit-flipped inclusion path fails', () => {
    expect(verifyInclusion(37, 70, leaf, proof.slice(0, -1), root)).toBe(false);
    expect(verifyInclusion(37, 70, leaf, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(37, 70, leaf, [...proof].reverse(), root)).toBe(false);
    const flipped = proof.map((p) => Buffer.from(p));
    const f = flipped[2] as Buffer;
    f[5] = (f[5] as number) ^ 1;
    expect(verifyInclusion(37, 70, leaf, flipped, root)).toBe(false);
    expect(
      verifyInclusion(
        37,
        70,
        leaf,
        proof.map((p, i) => (i === 1 ? p.subarray(0, 31) : p)),
        root,
      ),
    ).toBe(false);
  });

  it('a consistency proof for a forked history fails against the real one', () => {
    const forked = [...leaves.slice(0, 40), Buffer.from('rewritten'), ...leaves.slice(41)];
    const fork = buildTree(forked);
    // The fork agrees on the first 40 leaves and differs from leaf 40 on.
    expect(fork.roots[40]).toEqual(roots[40]);
    const forkProof = consistencyProof(30, 70, fork.read);
    expect(verifyConsistency(30, 70, forkProof, roots[30] as Buffer, fork.roots[70] as Buffer)).toBe(true);
    expect(verifyConsistency(30, 70, forkProof, roots[30] as Buffer, root)).toBe(false);
    expect(verifyConsistency(45, 70, consistencyProof(45, 70, read), fork.roots[45] as Buffer, root)).toBe(false);
  });

  it('a consistency proof checked at wrong sizes, truncated or with a bad hash fails', () => {
    const p = consistencyProof(45, 70, read);
    expect(verifyConsistency(45, 70, p, roots[45] as Buffer, root)).toBe(true);
    expect(verifyConsistency(44, 70, p, roots[45] as Buffer, root)).toBe(false);
    expect(verifyConsistency(45, 64, p, roots[45] as Buffer, root)).toBe(false);
    expect(verifyConsistency(70, 45, p, root, roots[45] as Buffer)).toBe(false);
    expect(verifyConsistency(45, 70, p.slice(1), roots[45] as Buffer, root)).toBe(false);
    expect(verifyConsistency(45, 70, [...p, root], roots[45] as Buffer, root)).toBe(false);
    expect(verifyConsistency(45, 70, [Buffer.alloc(7), ...p.slice(1)], roots[45] as Buffer, root)).toBe(false);
  });
});
