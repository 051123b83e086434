import { describe, expect, it } from 'vitest';
import { decideValidity } from './validity.ts';

const claims = { sub: 'agent-1', scope: ['read:*', 'audit:read'], exp: 1_900_000_000, jti: 'j1' };

describe('decideValidity', () => {
  it('answers a checked token with its claims, and an entry that allows it as valid', () => {
    expect(decideValidity({ ok: true, claims }, undefined)).toEqual({
      answer: { valid: true, sub: 'agent-1', scope: ['read:*', 'audit:read'], exp: 1_900_000_000 },
      entry: { subject: 'agent-1', resource: 'token:j1', result: 'allow', reason: 'valid' },
    });
  });

  it('says a required scope the token grants was satisfied', () => {
    const { answer, entry } = decideValidity({ ok: true, claims }, 'read:users');
    expect(answer).toMatchObject({ valid: true, requiredScope: 'read:users', scopeSatisfied: true });
    expect(entry).toMatchObject({ result: 'allow', reason: 'scope read:users satisfied' });
  });

  it('refuses a required scope the token does not grant, as CAPABILITY_INSUFFICIENT', () => {
    expect(decideValidity({ ok: true, claims }, 'write:users')).toEqual({
      answer: { valid: false, error: 'CAPABILITY_INSUFFICIENT', requiredScope: 'write:users', scopeSatisfied: false },
      entry: { subject: 'agent-1', resource: 'token:j1', result: 'deny', reason: 'CAPABILITY_INSUFFICIENT' },
    });
  });

  it('answers a token its check refused with that code, audited against no subject', () => {
    expect(decideValidity({ ok: false, code: 'TOKEN_REVOKED' }, 'read:users')).toEqual({
      answer: { valid: false, error: 'TOKEN_REVOKED' },
      entry: { subject: 'unknown', resource: 'token', result: 'deny', reason: 'TOKEN_REVOKED' },
    });
  });

  it("hands out a copy of the scope, never the claims' own array", () => {
    const { answer } = decideValidity({ ok: true, claims }, undefined);
    expect(answer.valid && answer.scope).not.toBe(claims.scope);
  });
});
