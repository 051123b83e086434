import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isValidScope, scopeGrants, scopeGrantsOne } from './scope.ts';

const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
const scopeArb = fc.array(segment, { minLength: 2, maxLength: 5 }).map((s) => s.join(':'));

describe('scope matching (spec, Authentication rule 1)', () => {
  it('read:* grants read:users and never read:users:delete', () => {
    expect(scopeGrantsOne('read:*', 'read:users')).toBe(true);
    expect(scopeGrantsOne('read:*', 'read:users:delete')).toBe(false);
  });

  it('a bare * grants everything', () => {
    fc.assert(fc.property(scopeArb, (required) => scopeGrantsOne('*', required)));
  });

  it('every scope grants itself', () => {
    fc.assert(fc.property(scopeArb, (s) => scopeGrantsOne(s, s)));
  });

  it('a wildcard segment matches exactly one segment, never more or fewer', () => {
    fc.assert(
      fc.property(scopeArb, fc.nat(), fc.array(segment, { minLength: 1, maxLength: 3 }), (s, at, extra) => {
        const parts = s.split(':');
        const i = at % parts.length;
        const pattern = parts.map((p, j) => (j === i ? '*' : p)).join(':');
        expect(scopeGrantsOne(pattern, s)).toBe(true);
        expect(scopeGrantsOne(pattern, [...parts, ...extra].join(':'))).toBe(false);
        if (parts.length > 2) expect(scopeGrantsOne(pattern, parts.slice(0, -1).join(':'))).toBe(false);
      }),
    );
  });

  it('a scope without wildcards grants only the identical scope', () => {
    fc.assert(fc.property(scopeArb, scopeArb, (a, b) => scopeGrantsOne(a, b) === (a === b)));
  });

  it('a segment differing in any position denies', () => {
    expect(scopeGrantsOne('audit:read', 'audit:write')).toBe(false);
    expect(scopeGrantsOne('auth:token:*', 'auth:token:create')).toBe(true);
    expect(scopeGrantsOne('auth:*:create', 'auth:token:create')).toBe(true);
    expect(scopeGrantsOne('*:read', 'audit:read')).toBe(true);
    expect(scopeGrantsOne('*:read', 'audit:read:all')).toBe(false);
  });

  it('a list grants when any of its entries grants, and an empty list grants nothing', () => {
    expect(scopeGrants(['a:b', 'c:*'], 'c:d')).toBe(true);
    expect(scopeGrants([], 'c:d')).toBe(false);
    fc.assert(fc.property(scopeArb, (s) => !scopeGrants([], s)));
  });

  it('accepts resource:action shapes and rejects malformed scopes', () => {
    for (const ok of ['*', 'read:users', 'auth:token:create', 'read:*', 'a.b:c-d_e']) expect(isValidScope(ok)).toBe(true);
    for (const bad of ['', 'read', 'read:', ':read', 'read::x', 'read users:x', 'a:b c', `${'x'.repeat(201)}:a`]) {
      expect(isValidScope(bad)).toBe(false);
    }
  });
});
