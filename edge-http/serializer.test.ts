import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { subjects } from '../bus/index.ts';
import { nullableForm, serializerCompiler } from './serializer.ts';

const compile = (schema: unknown) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' } as Parameters<typeof serializerCompiler>[0]);

const record = {
  seq: 7,
  id: `exec_${'0'.repeat(32)}`,
  timestamp: '2026-01-01T00:00:00.000Z',
  subject: 'agent',
  scope: ['crm:write'],
  module: 'crm',
  action: 'update',
  outcome: 'success',
  inputHash: 'a'.repeat(64),
  outputHash: null,
  cost: { amount: 120, currency: 'EUR', source: 'invoice' },
  governance: null,
  attested: { jti: null, sub: 'agent', scope: [], proven: false, tenantId: 'ten_1' },
  prevHash: 'c'.repeat(64),
  keyId: 'ed25519-0123456789abcdef',
  hash: 'd'.repeat(64),
  signature: 'sig',
};

describe('the serializer compiler', () => {
  it('writes an execution record, nullable fields null or set, exactly as JSON.stringify does', () => {
    const write = compile(subjects.executionsRecord.reply.properties.record);
    expect(write(record)).toBe(JSON.stringify(record));
    const set = {
      ...record,
      outputHash: 'b'.repeat(64),
      governance: { decision: 'PERMITTED', evidence: ['t-1'] },
      attested: { ...record.attested, jti: 'j', tenantId: null },
    };
    expect(write(set)).toBe(JSON.stringify(set));
  });

  it("turns only a union of one typed schema with null into a nullable one, and leaves other unions to the serializer's checks", () => {
    const nullable = Type.Union([Type.String({ description: 'an id' }), Type.Null()], { description: 'or none' });
    expect(nullableForm(nullable)).toEqual({ type: 'string', description: 'or none', nullable: true });
    const either = Type.Union([Type.String(), Type.Integer()]);
    expect(nullableForm(either)).toEqual(JSON.parse(JSON.stringify(either)));
    const untyped = Type.Union([Type.Unknown(), Type.Null()]);
    expect(nullableForm(untyped)).toEqual(JSON.parse(JSON.stringify(untyped)));
    const write = compile(Type.Object({ amount: Type.Union([Type.Integer(), Type.String()]) }));
    expect([write({ amount: 3 }), write({ amount: '3.5' })]).toEqual(['{"amount":3}', '{"amount":"3.5"}']);
  });

  it('compiles one serializer per schema object, so a shared error answer is compiled once', () => {
    const schema = Type.Object({ ok: Type.Boolean() });
    expect(compile(schema)).toBe(compile(schema));
    expect(compile(schema)).not.toBe(compile(Type.Object({ ok: Type.Boolean() })));
  });
});
