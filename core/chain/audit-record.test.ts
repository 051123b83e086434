import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditCanonicalJson, auditHash, AUDIT_FORMAT_VERSION, type AuditFields } from './audit-record.ts';
import { canonicalJson, hashCanonical } from './canonical.ts';

/** The generic RFC 8785 form of an entry: what auditCanonicalJson must reproduce byte for byte. */
function generic(f: AuditFields): string {
  return canonicalJson({ v: AUDIT_FORMAT_VERSION, chain: 'audit', ...f });
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u2028', '\ud800', '\u0000\u001f', 'é😀'),
);
const fields: fc.Arbitrary<AuditFields> = fc.record({
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  id: text,
  timestamp: text,
  subject: text,
  action: text,
  resource: text,
  result: fc.constantFrom('allow' as const, 'deny' as const),
  reason: text,
  tenantId: fc.option(text, { nil: null }),
  prevHash: text,
});

describe('the fixed-shape audit serialisation', () => {
  it('writes exactly the bytes of the generic RFC 8785 canonicaliser for any entry', () => {
    fc.assert(
      fc.property(fields, (f) => {
        fc.pre([f.id, f.timestamp, f.subject, f.action, f.resource, f.reason, f.tenantId ?? '', f.prevHash].every((s) => s.isWellFormed()));
        expect(auditCanonicalJson(f)).toBe(generic(f));
        expect(auditHash(f)).toBe(hashCanonical({ v: AUDIT_FORMAT_VERSION, chain: 'audit', ...f }));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a lone surrogate as the generic canonicaliser does', () => {
    const f: AuditFields = {
      seq: 1,
      id: 'a',
      timestamp: 't',
      subject: 'agent\ud800',
      action: 'a',
      resource: 'r',
      result: 'allow',
      reason: 'x',
      tenantId: null,
      prevHash: 'p',
    };
    expect(() => generic(f)).toThrow(/surrogate/i);
    expect(() => auditCanonicalJson(f)).toThrow(/surrogate/i);
  });

  it('refuses a sequence number that JSON could not carry exactly', () => {
    const f: AuditFields = {
      seq: 1.5,
      id: 'a',
      timestamp: 't',
      subject: 's',
      action: 'a',
      resource: 'r',
      result: 'allow',
      reason: 'x',
      tenantId: null,
      prevHash: 'p',
    };
    expect(() => auditCanonicalJson(f)).toThrow(/safe integer/);
  });
});
