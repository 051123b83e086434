import { describe, expect, it } from 'vitest';
import { exchangeLifetime, exchangeScope, globMatches, matchSubject, parseLifetime, parseTrustedIssuers } from './index.ts';

const good = {
  issuers: [
    {
      issuer: 'https://kubernetes.default.svc',
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1' }] },
      audience: 'suite',
      subjects: [{ match: 'system:serviceaccount:payments:*', scope: ['tool:invoice:read'], maxLifetime: '15m' }],
    },
    {
      issuer: 'https://token.actions.githubusercontent.com',
      jwksUri: 'https://token.actions.githubusercontent.com/.well-known/jwks',
      audience: 'https://suite.example',
      subjects: [{ match: 'repo:acme/*:ref:refs/heads/main', scope: ['tool:deploy:*'] }],
    },
  ],
};

describe('the trusted-issuer file', () => {
  it('parses a file with an inline JWKS and a jwksUri, defaulting maxLifetime to one hour', () => {
    const r = parseTrustedIssuers(JSON.stringify(good));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.issuers[0]!.subjects[0]!.maxLifetimeSeconds).toBe(900);
    expect(r.config.issuers[1]!.subjects[0]!.maxLifetimeSeconds).toBe(3600);
    expect(r.config.issuers[1]!.jwksUri).toBe('https://token.actions.githubusercontent.com/.well-known/jwks');
  });

  const broken: [string, (f: any) => void, RegExp][] = [
    [
      'both jwks and jwksUri',
      (f) => {
        f.issuers[1].jwks = good.issuers[0]!.jwks;
      },
      /issuers\[1\] \(https:\/\/token\.actions.*exactly one of jwks and jwksUri/,
    ],
    [
      'an http jwksUri',
      (f) => {
        f.issuers[1].jwksUri = 'http://example.com/jwks';
      },
      /issuers\[1\].*jwksUri: an https URL/,
    ],
    [
      'an http jwksUri to a name that only looks local',
      (f) => {
        f.issuers[1].jwksUri = 'http://127.0.0.1.example.com/jwks';
      },
      /jwksUri: an https URL/,
    ],
    [
      'a private key in jwks',
      (f) => {
        f.issuers[0].jwks.keys[0].d = 'secret';
      },
      /issuers\[0\].*private key/,
    ],
    [
      'a missing audience',
      (f) => {
        delete f.issuers[0].audience;
      },
      /issuers\[0\].*audience/,
    ],
    [
      'an invalid scope',
      (f) => {
        f.issuers[0].subjects[0].scope = ['has space'];
      },
      /issuers\[0\].*subjects\[0\]\.scope/,
    ],
    [
      'a lifetime over a day',
      (f) => {
        f.issuers[0].subjects[0].maxLifetime = '2d';
      },
      /subjects\[0\]\.maxLifetime/,
    ],
    [
      'an issuer listed twice',
      (f) => {
        f.issuers[1].issuer = f.issuers[0].issuer;
      },
      /issuers\[1\].*listed twice/,
    ],
    [
      'no subjects',
      (f) => {
        f.issuers[0].subjects = [];
      },
      /issuers\[0\].*subjects: a non-empty list/,
    ],
  ];
  for (const [what, mutate, message] of broken) {
    it(`refuses ${what} with a message naming the entry`, () => {
      const f = structuredClone(good);
      mutate(f);
      const r = parseTrustedIssuers(JSON.stringify(f));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(message);
    });
  }

  it('accepts an http jwksUri to a loopback host only (a local issuer)', () => {
    for (const uri of ['http://127.0.0.1:8080/jwks', 'http://localhost:9/keys', 'http://[::1]:80/k']) {
      const f = structuredClone(good);
      f.issuers[1]!.jwksUri = uri;
      expect(parseTrustedIssuers(JSON.stringify(f)).ok, uri).toBe(true);
    }
  });
  it('refuses text that is not JSON or not the expected shape', () => {
    expect(parseTrustedIssuers('{').ok).toBe(false);
    expect(parseTrustedIssuers('[]').ok).toBe(false);
  });

  it('reads durations in seconds, minutes, hours and days', () => {
    expect([parseLifetime('90s'), parseLifetime('15m'), parseLifetime('1h'), parseLifetime('1d'), parseLifetime(60)]).toEqual([90, 900, 3600, 86_400, 60]);
    expect([parseLifetime('0s'), parseLifetime('1w'), parseLifetime('-5m'), parseLifetime('25h'), parseLifetime(1.5)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('subject globs', () => {
  it('match Kubernetes, GitHub Actions and SPIFFE subjects across separators', () => {
    expect(globMatches('system:serviceaccount:payments:*', 'system:serviceaccount:payments:invoicer')).toBe(true);
    expect(globMatches('system:serviceaccount:payments:*', 'system:serviceaccount:billing:invoicer')).toBe(false);
    expect(globMatches('repo:acme/*:ref:refs/heads/main', 'repo:acme/api:ref:refs/heads/main')).toBe(true);
    expect(globMatches('repo:acme/*:ref:refs/heads/main', 'repo:acme/api:ref:refs/heads/feature')).toBe(false);
    expect(globMatches('spiffe://prod.example/ns/?/sa/agent', 'spiffe://prod.example/ns/a/sa/agent')).toBe(true);
    expect(globMatches('exact', 'exact')).toBe(true);
    expect(globMatches('exact', 'exactly')).toBe(false);
  });

  it('treat regular-expression characters literally', () => {
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('a.b', 'a.b')).toBe(true);
    expect(globMatches('(x)+', '(x)+')).toBe(true);
  });

  it('stay fast on a pathological pattern', () => {
    const started = performance.now();
    expect(globMatches('*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('take the first matching rule in file order', () => {
    const r = parseTrustedIssuers(
      JSON.stringify({
        issuers: [
          {
            ...good.issuers[0],
            subjects: [
              { match: 'system:serviceaccount:payments:admin', scope: ['tool:*'] },
              { match: 'system:serviceaccount:payments:*', scope: ['tool:invoice:read'] },
            ],
          },
        ],
      }),
    );
    if (!r.ok) throw new Error(r.message);
    expect(matchSubject(r.config.issuers[0]!, 'system:serviceaccount:payments:admin')?.scope).toEqual(['tool:*']);
    expect(matchSubject(r.config.issuers[0]!, 'system:serviceaccount:payments:web')?.scope).toEqual(['tool:invoice:read']);
    expect(matchSubject(r.config.issuers[0]!, 'system:serviceaccount:other:web')).toBeUndefined();
  });
});

describe('exchange ceilings', () => {
  it('give the whole ceiling when nothing is requested and a narrower request as asked', () => {
    expect(exchangeScope([], ['tool:deploy:*'])).toEqual({ ok: true, scope: ['tool:deploy:*'] });
    expect(exchangeScope(['tool:deploy:staging'], ['tool:deploy:*'])).toEqual({ ok: true, scope: ['tool:deploy:staging'] });
  });

  it('refuse a scope above the ceiling, naming it', () => {
    expect(exchangeScope(['tool:deploy:staging', 'tool:admin'], ['tool:deploy:*'])).toEqual({ ok: false, beyond: 'tool:admin' });
  });

  it('never let a token outlive the rule or the subject token', () => {
    expect(exchangeLifetime(900, 10_000, 1_000)).toBe(900);
    expect(exchangeLifetime(3600, 1_300, 1_000)).toBe(300);
    expect(exchangeLifetime(3600, 1_000, 1_000)).toBe(1);
  });
});
