import { HASH_SIZE, isTreeIndex, nodeHash, sameHash } from './hash.ts';
import { foldRight, rangeNodes, splitPoint } from './tree.ts';

/** Reads the root of a perfect subtree (height, index) of the tree; it must exist at the size asked. */
export type NodeReader = (height: number, index: number) => Buffer;

/** Where a node lives: proofs are built from nodes at these coordinates. */
export interface NodeRef {
  height: number;
  index: number;
}

/**
 * RFC 6962 §2.1.1 PATH(m, D[n]): the inclusion proof of leaf `index` in the tree of `size` leaves,
 * leaf side first. Built from stored perfect-subtree roots only (`read`).
 */
export function inclusionProof(index: number, size: number, read: NodeReader): Buffer[] {
  if (!isTreeIndex(index) || !isTreeIndex(size) || index >= size) throw new RangeError(`no leaf ${index} in a tree of ${size}`);
  const proof: Buffer[] = [];
  path(index, 0, size, read, proof);
  return proof;
}

function path(m: number, start: number, end: number, read: NodeReader, out: Buffer[]): void {
  const n = end - start;
  if (n === 1) return;
  const k = splitPoint(n);
  if (m < start + k) {
    path(m, start, start + k, read, out);
    out.push(rangeHash(start + k, end, read));
  } else {
    path(m, start + k, end, read, out);
    out.push(rangeHash(start, start + k, read));
  }
}

/**
 * RFC 6962 §2.1.2 PROOF(m, D[n]): the consistency proof from the tree of `from` leaves to the tree
 * of `to` leaves. Empty when from = to; from = 0 has no proof (nothing to be consistent with).
 */
export function consistencyProof(from: number, to: number, read: NodeReader): Buffer[] {
  if (!isTreeIndex(from) || !isTreeIndex(to) || from < 1 || from > to) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  const proof: Buffer[] = [];
  if (from < to) subproof(from, 0, to, true, read, proof);
  return proof;
}

function subproof(m: number, start: number, end: number, whole: boolean, read: NodeReader, out: Buffer[]): void {
  const n = end - start;
  if (m === n) {
    if (!whole) out.push(rangeHash(start, end, read));
    return;
  }
  const k = splitPoint(n);
  if (m <= k) {
    subproof(m, start, start + k, whole, read, out);
    out.push(rangeHash(start + k, end, read));
  } else {
    subproof(m - k, start + k, end, false, read, out);
    out.push(rangeHash(start, start + k, read));
  }
}

/** MTH(D[start:end]) from the perfect subtrees the range decomposes into. */
export function rangeHash(start: number, end: number, read: NodeReader): Buffer {
  const roots = rangeNodes(start, end).map((r) => read(r.height, r.index));
  const root = foldRight(roots);
  if (!root) throw new RangeError('empty range');
  return root;
}

/**
 * The nodes a proof reads, in no particular order: run the proof against a reader that records
 * what it is asked. Lets a store fetch exactly the tiles a proof needs, then build it synchronously.
 */
export function nodesRead(build: (read: NodeReader) => unknown): NodeRef[] {
  const seen = new Map<string, NodeRef>();
  build((height, index) => {
    seen.set(`${height}/${index}`, { height, index });
    return ZERO;
  });
  return [...seen.values()];
}

const ZERO = Buffer.alloc(HASH_SIZE);

/**
 * RFC 9162 §2.1.3.2: the root an inclusion proof leads to, or undefined when the proof cannot be
 * one for this index and size (wrong length, a hash of the wrong size). Every input here is the
 * prover's word (attacker-controlled): sizes and lengths are checked before any is used.
 */
export function rootFromInclusionProof(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Buffer | undefined {
  if (!isTreeIndex(index) || !isTreeIndex(size) || index >= size) return undefined;
  if (leaf.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return undefined;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : undefined;
}

export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  return sameHash(rootFromInclusionProof(index, size, leaf, proof), root);
}

/**
 * RFC 9162 §2.1.4.2: true when `proof` shows the tree of `from` leaves with root `root1` is a prefix
 * of the tree of `to` leaves with root `root2`. A proof from the empty tree is refused (it proves
 * nothing), as transparency-dev/merkle does.
 */
export function verifyConsistency(from: number, to: number, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array): boolean {
  if (!isTreeIndex(from) || !isTreeIndex(to) || from > to || from === 0) return false;
  // Equal sizes: the two roots must be the same tree head, nothing to prove.
  if (from === to) return proof.length === 0 && Buffer.compare(root1, root2) === 0;
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  if (proof.length === 0) return false;
  // Step 2: when `from` is a power of two its root is the proof's first node.
  const path = isPowerOfTwo(from) ? [root1, ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0] as Uint8Array);
  let sr: Buffer = Buffer.from(path[0] as Uint8Array);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, root1) && sameHash(sr, root2);
}

function isPowerOfTwo(n: number): boolean {
  let s = n;
  while (s > 1 && s % 2 === 0) s /= 2;
  return s === 1;
}
