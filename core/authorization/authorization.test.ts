import { describe, expect, it } from 'vitest';
import { answerPoll, challengeProblem, newUserCode, normaliseUserCode, s256, USER_CODE_ALPHABET, verifierMatches } from './index.ts';

// RFC 7636 Appendix B's published vector.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE', () => {
  it("computes RFC 7636 Appendix B's challenge from its verifier", () => {
    expect(s256(VERIFIER)).toBe(CHALLENGE);
    expect(verifierMatches(VERIFIER, CHALLENGE)).toBe(true);
  });

  it('refuses a wrong, missing or malformed verifier', () => {
    expect(verifierMatches(`${VERIFIER.slice(0, -1)}x`, CHALLENGE)).toBe(false);
    expect(verifierMatches(undefined, CHALLENGE)).toBe(false);
    expect(verifierMatches('short', s256('short'))).toBe(false);
    expect(verifierMatches(`${VERIFIER}!`, s256(`${VERIFIER}!`))).toBe(false);
  });

  it('requires a challenge and refuses the plain method', () => {
    expect(challengeProblem(CHALLENGE, 'S256')).toBeUndefined();
    expect(challengeProblem(undefined, 'S256')).toMatch(/required/);
    expect(challengeProblem(VERIFIER, 'plain')).toMatch(/plain is not accepted/);
    expect(challengeProblem(CHALLENGE, undefined)).toMatch(/must be S256/);
    expect(challengeProblem('abc', 'S256')).toMatch(/43 characters/);
  });
});

describe('device user codes', () => {
  it("are eight letters of RFC 8628's consonant alphabet shown as XXXX-XXXX", () => {
    for (let i = 0; i < 50; i++) {
      const code = newUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    }
    expect(newUserCode(() => 0)).toBe('BBBB-BBBB');
    expect(newUserCode(() => USER_CODE_ALPHABET.length - 1)).toBe('ZZZZ-ZZZZ');
  });

  it('are read forgivingly: lower case, spaces and missing dashes', () => {
    expect(normaliseUserCode('wdjb-mjht')).toBe('WDJB-MJHT');
    expect(normaliseUserCode(' WDJB MJHT ')).toBe('WDJB-MJHT');
    expect(normaliseUserCode('WDJBMJHT')).toBe('WDJB-MJHT');
  });

  it('refuse what cannot be a code: vowels, digits, wrong length', () => {
    expect(normaliseUserCode('WDJA-MJHT')).toBeUndefined();
    expect(normaliseUserCode('WDJ1-MJHT')).toBeUndefined();
    expect(normaliseUserCode('WDJB-MJH')).toBeUndefined();
  });
});

describe('device polling', () => {
  const base = { status: 'pending' as const, expiresAt: 1600, intervalSeconds: 5 };

  it('answers authorization_pending while the person has not decided', () => {
    expect(answerPoll(base, 1000)).toEqual({ answer: 'authorization_pending' });
    expect(answerPoll({ ...base, lastPolledAt: 990 }, 1000)).toEqual({ answer: 'authorization_pending' });
  });

  it('answers slow_down with the interval raised by five seconds when polled too fast', () => {
    expect(answerPoll({ ...base, lastPolledAt: 998 }, 1000)).toEqual({ answer: 'slow_down', intervalSeconds: 10 });
  });

  it('answers access_denied, issue, expired_token and invalid_grant for the other states', () => {
    expect(answerPoll({ ...base, status: 'denied' }, 1000)).toEqual({ answer: 'access_denied' });
    expect(answerPoll({ ...base, status: 'approved' }, 1000)).toEqual({ answer: 'issue' });
    expect(answerPoll({ ...base, status: 'approved' }, 1600)).toEqual({ answer: 'expired_token' });
    expect(answerPoll({ ...base, status: 'spent' }, 1000)).toEqual({ answer: 'invalid_grant' });
  });
});
