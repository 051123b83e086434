import { Type } from 'typebox';

/**
 * Strings of action inputs: no NUL and no lone UTF-16 surrogate. An input is hashed (RFC 8785) into
 * its execution trace before anything is sent, and RFC 8785 cannot canonicalise a lone surrogate;
 * refusing both here makes a bad string a 400 naming the field instead of a failure later.
 */
const WELL_FORMED = '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';

export const Str = (maxLength: number, minLength = 1, description?: string) =>
  Type.String({ minLength, maxLength, pattern: WELL_FORMED, ...(description !== undefined ? { description } : {}) });

/** A string matching `pattern` (which must itself exclude NUL and surrogates). */
export const Pattern = (pattern: string, maxLength: number, description?: string) =>
  Type.String({ pattern, maxLength, minLength: 1, ...(description !== undefined ? { description } : {}) });

/** Every string in a value made well formed (lone surrogates replaced), so it can be hashed and sent. */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k.toWellFormed(), { value: wellFormed(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
