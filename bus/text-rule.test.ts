import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, MAX_STRING_LENGTH, clipText, hashedJson, textProblem } from './text-rule.ts';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('the text rule', () => {
  it('lets ordinary JSON through: text in any script, emoji, newlines and tabs, numbers, nulls', () => {
    expect(textProblem({ sub: 'agent-1', note: 'Grüße 👋 日本\n\t', n: 3, ok: true, none: null, list: ['a', { b: 'c' }] })).toBeUndefined();
  });

  it('refuses a NUL anywhere and names where it is, without quoting the value', () => {
    expect(textProblem({ a: [{ b: 'x\u0000y' }] })).toEqual({ path: '/a/0/b', message: 'must not contain NUL (U+0000)' });
    expect(textProblem('\u0000')).toEqual({ path: '', message: 'must not contain NUL (U+0000)' });
  });

  it('refuses a lone surrogate, high or low, but not a pair', () => {
    expect(textProblem({ s: 'a\uD800' })?.message).toBe('must be well-formed Unicode (it holds a lone surrogate)');
    expect(textProblem({ s: '\uDC00b' })?.path).toBe('/s');
    expect(textProblem({ s: '\uD83D\uDE00' })).toBeUndefined();
  });

  it(`refuses a string longer than ${MAX_STRING_LENGTH} characters and accepts one of exactly that length`, () => {
    expect(textProblem({ s: 'x'.repeat(MAX_STRING_LENGTH) })).toBeUndefined();
    expect(textProblem({ s: 'x'.repeat(MAX_STRING_LENGTH + 1) })).toEqual({ path: '/s', message: `must not have more than ${MAX_STRING_LENGTH} characters` });
  });

  it('applies the same rule to keys, reporting the object that holds the key', () => {
    expect(textProblem({ a: { 'k\u0000': 1 } })).toEqual({ path: '/a', message: 'has a key that must not contain NUL (U+0000)' });
  });

  it('refuses __proto__ keys and constructor.prototype with a message that says why', () => {
    expect(textProblem(JSON.parse('{"a":{"__proto__":{"admin":true}}}'))).toEqual({
      path: '/a',
      message: 'must not have the key "__proto__" (it could set an object\'s prototype)',
    });
    expect(textProblem(JSON.parse('{"constructor":{"prototype":{"x":1}}}'))?.message).toContain('"constructor"');
    expect(textProblem({ constructor: 'Foo' })).toBeUndefined();
  });

  it(`accepts ${MAX_DEPTH} levels of nesting, refuses one more, and survives a very deep value`, () => {
    expect(textProblem(nested(MAX_DEPTH))).toBeUndefined();
    expect(textProblem(nested(MAX_DEPTH + 1))?.message).toBe(`must not be nested more than ${MAX_DEPTH} levels deep`);
    expect(textProblem(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))?.message).toContain('nested');
  });

  it('exempts subtrees a schema marks as hashed from the NUL and length rules only', () => {
    const schema = Type.Object({ input: hashedJson(), output: Type.Optional(hashedJson()), subject: Type.String() });
    expect(textProblem({ input: { text: 'a\u0000b'.repeat(MAX_STRING_LENGTH) }, subject: 's' }, schema)).toBeUndefined();
    expect(textProblem({ input: 'ok', output: ['\u0000'], subject: 's' }, schema)).toBeUndefined();
    expect(textProblem({ input: 'ok', subject: 's\u0000' }, schema)?.path).toBe('/subject');
    expect(textProblem({ input: { s: '\uD800' } }, schema)?.path).toBe('/input/s');
    expect(textProblem(JSON.parse('{"input":{"__proto__":1}}'), schema)?.path).toBe('/input');
  });

  it('shortens a long key in the path it reports', () => {
    const key = 'k'.repeat(5000);
    const problem = textProblem({ [key]: '\u0000' });
    expect(problem?.path.length).toBeLessThan(80);
  });
});

describe('clipText', () => {
  it('never leaves half of a surrogate pair, and never exceeds the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 0, max: 40 }), (text, max) => {
        const clipped = clipText(text, max);
        expect(clipped.length).toBeLessThanOrEqual(max);
        expect(clipped.isWellFormed()).toBe(true);
        expect(text.startsWith(clipped)).toBe(true);
        expect(clipped.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
      }),
    );
  });
});
