import { createHash, hash } from 'node:crypto';

/** RFC 6962 §2.1 / RFC 9162 §2.1.1: SHA-256, with domain-separation prefixes for leaves and nodes. */
export const HASH_SIZE = 32;

/** The leaf hash of an entry: SHA-256(0x00 || entry). */
export function leafHash(entry: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

/**
 * The leaf hash of an entry given as text (its UTF-8 bytes): one call, with no copy of the entry made
 * as bytes first. The maintainer hashes every record's export line this way (a third less CPU).
 */
export function leafHashOfText(entry: string): Buffer {
  return hash('sha256', `\0${entry}`, 'buffer');
}

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
  // Two hashes side by side in one buffer, hashed in one call: proofs and tile rebuilds make hundreds.
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  return hash('sha256', NODE_INPUT, 'buffer');
}

/** The root of the empty tree: SHA-256 of the empty string (RFC 6962 §2.1). */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

const LEAF_PREFIX = Buffer.from([0]);
const NODE_PREFIX = Buffer.from([1]);
/** Reused by every node hash: the prefix, then the two children (filled and hashed synchronously). */
const NODE_INPUT = Buffer.concat([NODE_PREFIX, Buffer.alloc(2 * HASH_SIZE)]);

/** True when both are hashes of the right size and equal. Comparing public values: no constant time needed. */
export function sameHash(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === HASH_SIZE && b.length === HASH_SIZE && Buffer.compare(a, b) === 0;
}

/** A tree size or index: a non-negative safe integer (sizes travel as JSON numbers and decimal text). */
export function isTreeIndex(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
