import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from './canonical.ts';
import { executionCanonicalJson, executionSignedObject, type ExecutionFields } from './execution-record.ts';

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u2028', '\u0000\u001f', 'é😀', 'a\ud800'));
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 0.1 + 0.2));
/** Anything JSON can hold, and a few things it cannot. */
const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY), number);
const formatValue = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }));
/** An object of the format's keys (any of them missing), sometimes with a key outside the format. */
const shaped = (keys: readonly string[]) => fc.oneof(
  { weight: 4, arbitrary: fc.record(Object.fromEntries(keys.map((k) => [k, formatValue])), { requiredKeys: [] }) },
  fc.constant(null),
  fc.record({ ...Object.fromEntries(keys.map((k) => [k, formatValue])), extra: anyValue }, { requiredKeys: [] }),
);
const wellShaped = fc.record({
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  id: text, timestamp: text, subject: text, module: text, action: text, outcome: text,
  inputHash: text, outputHash: fc.option(text, { nil: null }), prevHash: text, keyId: text,
  scope: fc.array(text, { maxLength: 4 }),
  cost: shaped(['amount', 'currency', 'source', 'unit', 'quantity']),
  governance: shaped(['policyRef', 'policyVersion', 'decision', 'evidence', 'evaluatedBy']),
  attested: shaped(['jti', 'sub', 'scope', 'proven', 'tenantId']),
});
const FIELD_NAMES = ['seq', 'id', 'timestamp', 'subject', 'module', 'action', 'outcome', 'inputHash', 'outputHash', 'prevHash', 'keyId', 'scope', 'cost', 'governance', 'attested'] as const;
/** Mostly records of the format's shape; one field in three of them replaced by any value at all (an edited row). */
const fields = fc.tuple(wellShaped, fc.option(fc.tuple(fc.constantFrom(...FIELD_NAMES), anyValue), { freq: 2 }))
  .map(([f, edit]) => (edit ? { ...f, [edit[0]]: edit[1] } : f)) as unknown as fc.Arbitrary<ExecutionFields>;

/** The outcome of a serialiser: its text, or that it refused. */
function outcome(f: () => string): string {
  try {
    return f();
  } catch {
    return '(refused)';
  }
}

describe('the fixed-shape execution record serialisation', () => {
  it('writes exactly the bytes of the generic RFC 8785 canonicaliser, or refuses exactly when it does, for any record', () => {
    fc.assert(fc.property(fields, (f) => {
      expect(outcome(() => executionCanonicalJson(f))).toBe(outcome(() => canonicalJson(executionSignedObject(f))));
    }), { numRuns: 5000 });
  });

  it('writes a record of the usual shape without falling back', () => {
    const f: ExecutionFields = {
      seq: 7, id: 'exec_1', timestamp: '2026-01-01T00:00:00.000Z', subject: 's', scope: ['a:b'], module: 'm', action: 'a',
      outcome: 'success', inputHash: 'i', outputHash: null, cost: { amount: 1.5, currency: 'EUR', source: 'x', quantity: 2, unit: 'u' },
      governance: { evidence: ['e'], decision: 'PERMITTED' }, attested: { jti: null, sub: 's', scope: [], proven: true, tenantId: 't' },
      prevHash: 'p', keyId: 'k',
    };
    expect(executionCanonicalJson(f)).toBe(canonicalJson(executionSignedObject(f)));
    expect(executionCanonicalJson(f)).toContain('"cost":{"amount":1.5,"currency":"EUR","quantity":2,"source":"x","unit":"u"}');
  });
});
