import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from './canonical.ts';
import { executionCanonicalJson, executionSignedObject, type ExecutionFields, type ExecutionRecord } from './execution-record.ts';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u2028', '\u0000\u001f', 'é😀', 'a\ud800'),
);
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 0.1 + 0.2));
/** Anything JSON can hold, and a few things it cannot. */
const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY), number);
const formatValue = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }));
/** An object of the format's keys (any of them missing), sometimes with a key outside the format. */
const shaped = (keys: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record(Object.fromEntries(keys.map((k) => [k, formatValue])), { requiredKeys: [] }) },
    fc.constant(null),
    fc.record({ ...Object.fromEntries(keys.map((k) => [k, formatValue])), extra: anyValue }, { requiredKeys: [] }),
  );
const wellShaped = fc.record({
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  id: text,
  timestamp: text,
  subject: text,
  module: text,
  action: text,
  outcome: text,
  inputHash: text,
  outputHash: fc.option(text, { nil: null }),
  prevHash: text,
  keyId: text,
  scope: fc.array(text, { maxLength: 4 }),
  cost: shaped(['amount', 'currency', 'source', 'unit', 'quantity']),
  governance: shaped(['policyRef', 'policyVersion', 'decision', 'evidence', 'evaluatedBy']),
  attested: shaped(['jti', 'sub', 'scope', 'proven', 'tenantId']),
});
const FIELD_NAMES = [
  'seq',
  'id',
  'timestamp',
  'subject',
  'module',
  'action',
  'outcome',
  'inputHash',
  'outputHash',
  'prevHash',
  'keyId',
  'scope',
  'cost',
  'governance',
  'attested',
] as const;
/** Mostly records of the format's shape; one field in three of them replaced by any value at all (an edited row). */
const fields = fc
  .tuple(wellShaped, fc.option(fc.tuple(fc.constantFrom(...FIELD_NAMES), anyValue), { freq: 2 }))
  .map(([f, edit]) => (edit ? { ...f, [edit[0]]: edit[1] } : f)) as unknown as fc.Arbitrary<ExecutionFields>;

// Records read back from a database where anything may have been edited: every kind of string and
// number, objects with a toJSON or no prototype, extra keys, any value in any field.
// Strings of every kind, with the characters RFC 8785 escapes and a lone surrogate it refuses.
const anyStr = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', 'a"b', 'back\\slash', 'line\nbreak', '\u0000\u0008\u001f\u007f', '\u2028\u2029', 'é€😀', 'x\udc00', '\ud83d'),
);
const anyNum = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e21, 1e-7, 123.456, 2 ** 53, Number.MIN_VALUE, Number.NaN, -Infinity));
const anyLeaf = fc.oneof(anyStr, anyNum, fc.boolean(), fc.constant(null), fc.array(anyStr, { maxLength: 3 }));
/** Anything at all where a value of the format is expected (an edited row). */
const odd = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, [1, 'a'], { toJSON: () => 'x' }, Object.create(null) as object), anyNum);

/** An object with some of `keys`, sometimes with a key more or a value of another kind. */
const nestedAny = (keys: readonly string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.dictionary(fc.constantFrom(...keys), anyLeaf, { maxKeys: keys.length }) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.tuple(fc.dictionary(fc.constantFrom(...keys), anyLeaf), fc.string(), odd).map(([o, k, v]) => ({ ...o, [k]: v })) },
    { weight: 1, arbitrary: odd },
  );

const anyRecord = fc
  .record({
    seq: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) }, { weight: 1, arbitrary: odd }),
    id: anyStr,
    timestamp: anyStr,
    subject: anyStr,
    module: anyStr,
    action: anyStr,
    outcome: anyStr,
    inputHash: anyStr,
    outputHash: fc.oneof(anyStr, fc.constant(null)),
    prevHash: anyStr,
    keyId: anyStr,
    hash: anyStr,
    signature: anyStr,
    scope: fc.oneof({ weight: 5, arbitrary: fc.array(anyStr, { maxLength: 4 }) }, { weight: 1, arbitrary: odd }),
    cost: nestedAny(['amount', 'currency', 'source', 'unit', 'quantity']),
    governance: nestedAny(['policyRef', 'policyVersion', 'decision', 'evidence', 'evaluatedBy']),
    attested: nestedAny(['jti', 'sub', 'scope', 'proven', 'tenantId']),
  })
  .chain((r) =>
    fc.option(fc.tuple(fc.constantFrom(...Object.keys(r)), odd), { freq: 3 }).map((edit) => (edit ? { ...r, [edit[0]]: edit[1] } : r)),
  ) as unknown as fc.Arbitrary<ExecutionRecord>;

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
    fc.assert(
      fc.property(fields, (f) => {
        expect(outcome(() => executionCanonicalJson(f))).toBe(outcome(() => canonicalJson(executionSignedObject(f))));
      }),
      { numRuns: 5000 },
    );
  });

  it('writes the same bytes as the generic canonicaliser for records edited in any way, as read back from a database', () => {
    fc.assert(
      fc.property(anyRecord, (r) => {
        expect(outcome(() => executionCanonicalJson(r))).toBe(outcome(() => canonicalJson(executionSignedObject(r))));
      }),
      { numRuns: 10_000 },
    );
  });

  it('writes numbers and escapes as RFC 8785 does, also for a record parsed back from JSON', () => {
    const r: ExecutionRecord = {
      seq: 12,
      id: 'exec_00000000000000000000000000000001',
      timestamp: '2026-01-02T03:04:05.006Z',
      subject: 'agent "x"\n',
      scope: ['crm:write', 'é'],
      module: 'crm',
      action: 'update',
      outcome: 'success',
      inputHash: 'a'.repeat(64),
      outputHash: null,
      cost: { unit: 'tokens', amount: 1.5e-7, currency: 'EUR', quantity: 1e21, source: 'invoice' },
      governance: { policyRef: 'p', evidence: ['e1', 'e2'], decision: 'PERMITTED' },
      attested: { tenantId: null, sub: 's', scope: [], proven: true, jti: null },
      prevHash: 'b'.repeat(64),
      keyId: 'ed25519-0000000000000000',
      hash: 'c'.repeat(64),
      signature: 'sig',
    };
    const parsed = JSON.parse(JSON.stringify(r)) as ExecutionRecord;
    expect(executionCanonicalJson(parsed)).toBe(canonicalJson(executionSignedObject(r)));
    expect(executionCanonicalJson(parsed)).toContain('"cost":{"amount":1.5e-7,"currency":"EUR","quantity":1e+21,"source":"invoice","unit":"tokens"}');
  });

  it('writes a record of the usual shape without falling back', () => {
    const f: ExecutionFields = {
      seq: 7,
      id: 'exec_1',
      timestamp: '2026-01-01T00:00:00.000Z',
      subject: 's',
      scope: ['a:b'],
      module: 'm',
      action: 'a',
      outcome: 'success',
      inputHash: 'i',
      outputHash: null,
      cost: { amount: 1.5, currency: 'EUR', source: 'x', quantity: 2, unit: 'u' },
      governance: { evidence: ['e'], decision: 'PERMITTED' },
      attested: { jti: null, sub: 's', scope: [], proven: true, tenantId: 't' },
      prevHash: 'p',
      keyId: 'k',
    };
    expect(executionCanonicalJson(f)).toBe(canonicalJson(executionSignedObject(f)));
    expect(executionCanonicalJson(f)).toContain('"cost":{"amount":1.5,"currency":"EUR","quantity":2,"source":"x","unit":"u"}');
  });
});
