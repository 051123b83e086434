import { describe, expect, it } from 'vitest';
import { hasDuplicateKeys, isCanonicalBase64url } from './index.ts';

describe('duplicate member names in JSON', () => {
  it('finds a name given twice in one object, at any depth, compared decoded', () => {
    expect(hasDuplicateKeys('{"a":1,"a":2}')).toBe(true);
    expect(hasDuplicateKeys('{"x":[{"b":1},{"c":{"d":1,"d":1}}]}')).toBe(true);
    expect(hasDuplicateKeys('{"a":1,"\\u0061":2}')).toBe(true);
    expect(hasDuplicateKeys('{ "a" : 1 , "b":{}, "a" : 3 }')).toBe(true);
  });

  it('accepts equal names in different objects and names that only appear as values', () => {
    expect(hasDuplicateKeys('{"a":{"a":1},"b":{"a":2}}')).toBe(false);
    expect(hasDuplicateKeys('{"a":"a","b":["a","a"],"c":"\\"a\\""}')).toBe(false);
    expect(hasDuplicateKeys('[{"a":1},{"a":1}]')).toBe(false);
    expect(hasDuplicateKeys('{"sub":"x","scope":["read:*"],"jti":"j","iat":1,"exp":2}')).toBe(false);
  });
});

describe('canonical base64url', () => {
  it('accepts the spelling Node itself writes and refuses padding, other alphabets and set unused bits', () => {
    const bytes = Buffer.from('0123456789abcdef0123456789abcdef');
    const canonical = bytes.toString('base64url');
    expect(isCanonicalBase64url(canonical)).toBe(true);
    expect(isCanonicalBase64url(`${canonical}=`)).toBe(false);
    expect(isCanonicalBase64url(bytes.toString('base64'))).toBe(canonical === bytes.toString('base64'));
    expect(isCanonicalBase64url('ab+/')).toBe(false);
    // 'Y' (011000) and 'Z' (011001) decode to the same last byte of a 32-byte value.
    expect(isCanonicalBase64url(`${'A'.repeat(42)}Y`)).toBe(true);
    expect(isCanonicalBase64url(`${'A'.repeat(42)}Z`)).toBe(false);
  });
});
