import canonicalize from 'canonicalize';
import { hash } from 'node:crypto';

/**
 * RFC 8785 JSON Canonicalization Scheme: the exact bytes we hash. The `canonicalize` package is the
 * reference implementation by the RFC's author; we do not write our own number serialisation.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalised (undefined at top level)');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  // The one-shot form: no Hash object per call (about half the time for a record's few hundred bytes).
  return hash('sha256', data, 'hex');
}

/** SHA-256 of the canonical JSON of a value: how inputs, outputs and records are hashed. */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The `prevHash` of the first record of every chain. */
export const GENESIS_HASH = '0'.repeat(64);
