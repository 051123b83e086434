import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { describeProblems, eventSubject, requestSubject, validatorFor } from './define.ts';

describe('subject declarations', () => {
  it('are frozen objects carrying their schemas', () => {
    const Req = Type.Object({ a: Type.String() });
    const Res = Type.Object({ b: Type.Number() });
    const s = requestSubject('suite.things.get', Req, Res);
    expect(s).toEqual({ kind: 'request', subject: 'suite.things.get', request: Req, reply: Res });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(eventSubject('suite.things.changed', Res))).toBe(true);
  });

  it('refuse subjects with wildcards, empty tokens or whitespace', () => {
    for (const bad of ['a.*', 'a.>', 'a..b', '', 'a b']) {
      expect(() => requestSubject(bad, Type.Null(), Type.Null())).toThrow(TypeError);
      expect(() => eventSubject(bad, Type.Null())).toThrow(TypeError);
    }
  });
});

describe('payload checking', () => {
  const Schema = Type.Object({
    name: Type.String(),
    limits: Type.Object({ max: Type.Integer({ minimum: 1 }) }),
    'a/b': Type.Optional(Type.String()),
  });

  it('compiles one validator per schema and reuses it', () => {
    expect(validatorFor(Schema)).toBe(validatorFor(Schema));
    expect(validatorFor(Type.String())).not.toBe(validatorFor(Type.String()));
  });

  it('accepts a valid value', () => {
    expect(describeProblems(Schema, { name: 'x', limits: { max: 3 } })).toBeUndefined();
  });

  it('names missing and wrong fields by JSON Pointer', () => {
    expect(describeProblems(Schema, { limits: { max: 0 } })).toBe('/name is required; /limits/max must be >= 1');
    expect(describeProblems(Schema, { name: 'x', limits: {}, 'a/b': 1 })).toContain('/a~1b must be string');
  });

  it('never quotes the offending value, which may be a secret', () => {
    const problem = describeProblems(Schema, { name: 'x', limits: { max: 'sk-live-secret' } });
    expect(problem).toContain('/limits/max');
    expect(problem).not.toContain('sk-live-secret');
  });

  it('describes a value of the wrong kind at the root', () => {
    expect(describeProblems(Schema, 'text')).toBe('/ must be object');
  });
});
