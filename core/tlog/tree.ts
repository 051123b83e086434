import { EMPTY_ROOT, nodeHash } from './hash.ts';

/** A node of the tree: the root of the perfect subtree of 2^height leaves starting at leaf index × 2^height. */
export interface TreeNode {
  readonly height: number;
  readonly index: number;
  readonly hash: Buffer;
}

/**
 * The right border of a tree (a compact range from 0, transparency-dev/merkle docs/compact_ranges.md):
 * the roots of the perfect subtrees the leaves decompose into, largest first. That is all an append
 * needs: each leaf merges with the border's last roots while they are of its height, so appending n
 * leaves costs n leaf merges, amortised two hashes each, with no stored node read back.
 */
export class CompactTree {
  #size: number;
  readonly #peaks: Buffer[];

  constructor(size = 0, peaks: readonly Buffer[] = []) {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`tree size ${size} is not a size`);
    if (peaks.length !== popCount(size)) throw new RangeError(`a tree of ${size} leaves has ${popCount(size)} border roots, not ${peaks.length}`);
    this.#size = size;
    this.#peaks = [...peaks];
  }

  get size(): number {
    return this.#size;
  }

  /** The border roots, largest subtree first (what to store to resume appending). */
  get peaks(): readonly Buffer[] {
    return [...this.#peaks];
  }

  /** Append one leaf hash; answers every node it completed, the leaf itself (height 0) first. */
  append(leaf: Buffer): TreeNode[] {
    const made: TreeNode[] = [{ height: 0, index: this.#size, hash: leaf }];
    let hash = leaf;
    let index = this.#size;
    let height = 0;
    // Each trailing 1 bit of the old size is a peak of the new leaf's height to merge with.
    for (let s = this.#size; s % 2 === 1; s = Math.floor(s / 2)) {
      hash = nodeHash(this.#peaks.pop() as Buffer, hash);
      height += 1;
      index = Math.floor(index / 2);
      made.push({ height, index, hash });
    }
    this.#peaks.push(hash);
    this.#size += 1;
    return made;
  }

  /** RFC 6962 MTH of the leaves so far: the border folded from the right. */
  root(): Buffer {
    return foldRight(this.#peaks) ?? EMPTY_ROOT;
  }
}

/** Hash a left-to-right list of subtree roots of decreasing size into the root of their union. */
export function foldRight(roots: readonly Buffer[]): Buffer | undefined {
  let acc: Buffer | undefined;
  for (let i = roots.length - 1; i >= 0; i -= 1) acc = acc ? nodeHash(roots[i] as Buffer, acc) : roots[i];
  return acc;
}

/** The root of a perfect subtree from its 2^k leaf (or lower-level) hashes. */
export function perfectRoot(hashes: readonly Buffer[]): Buffer {
  let level = [...hashes];
  if (level.length === 0 || (level.length & (level.length - 1)) !== 0) throw new RangeError('a perfect subtree has a power-of-two width');
  while (level.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(nodeHash(level[i] as Buffer, level[i + 1] as Buffer));
    level = up;
  }
  return level[0] as Buffer;
}

/**
 * The perfect subtrees that make up leaves [start, end), left to right, as (height, index). For
 * the ranges RFC 6962's recursion asks for (start aligned to a power of two at least end - start)
 * they shrink from left to right, so folding their roots from the right gives MTH(D[start:end]).
 */
export function rangeNodes(start: number, end: number): Array<{ height: number; index: number }> {
  const nodes: Array<{ height: number; index: number }> = [];
  let at = start;
  while (at < end) {
    let width = 1;
    let height = 0;
    while (at % (width * 2) === 0 && at + width * 2 <= end) {
      width *= 2;
      height += 1;
    }
    nodes.push({ height, index: at / width });
    at += width;
  }
  return nodes;
}

export function popCount(n: number): number {
  let count = 0;
  for (let s = n; s > 0; s = Math.floor(s / 2)) count += s % 2;
  return count;
}

/** The largest power of two strictly below n (n ≥ 2): RFC 6962's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
