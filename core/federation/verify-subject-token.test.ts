import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseTrustedIssuers, verifySubjectToken, type TrustedIssuers } from './index.ts';

// Real keys and real signatures (jose), an injected clock: three issuers shaped like the ones the
// feature is for: a Kubernetes cluster's service-account tokens (RS256), GitHub Actions' OIDC
// tokens (RS256), a SPIFFE trust domain's JWT-SVIDs (ES256).
const NOW = 1_800_000_000;
const K8S = 'https://kubernetes.default.svc.cluster.local';
const GHA = 'https://token.actions.githubusercontent.com';
const SPIFFE = 'https://oidc.prod.example';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let k8sKey: Key, ghaKey: Key, spiffeKey: Key, strangerKey: Key;
let trust: TrustedIssuers;

const publicJwk = async (pair: Awaited<ReturnType<typeof generateKeyPair>>, kid: string): Promise<JWK> => ({ ...(await exportJWK(pair.publicKey)), kid });
const keysFor = (issuer: TrustedIssuers['issuers'][number]) => createLocalJWKSet({ keys: issuer.jwks!.keys as JWK[] });

function sign(key: Key, alg: string, kid: string, claims: Record<string, unknown>, times: { iat?: number; exp?: number; nbf?: number } = {}) {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg, kid })
    .setIssuedAt(times.iat ?? NOW - 10)
    .setExpirationTime(times.exp ?? NOW + 600);
  if (times.nbf !== undefined) jwt.setNotBefore(times.nbf);
  return jwt.sign(key);
}

const k8sToken = (over: Record<string, unknown> = {}, times = {}) =>
  sign(
    k8sKey,
    'RS256',
    'k8s-1',
    {
      iss: K8S,
      sub: 'system:serviceaccount:payments:invoicer',
      aud: ['suite'],
      'kubernetes.io': { namespace: 'payments', serviceaccount: { name: 'invoicer', uid: 'b5c1' } },
      jti: crypto.randomUUID(),
      ...over,
    },
    times,
  );
const ghaToken = (over: Record<string, unknown> = {}) =>
  sign(ghaKey, 'RS256', 'gha-1', {
    iss: GHA,
    sub: 'repo:acme/api:ref:refs/heads/main',
    aud: 'https://suite.example',
    repository: 'acme/api',
    ref: 'refs/heads/main',
    workflow: 'deploy',
    run_id: '42',
    jti: crypto.randomUUID(),
    ...over,
  });
const svid = (over: Record<string, unknown> = {}) =>
  sign(spiffeKey, 'ES256', 'spiffe-1', { iss: SPIFFE, sub: 'spiffe://prod.example/ns/agents/sa/planner', aud: ['suite'], ...over });

beforeAll(async () => {
  const [k8s, gha, spiffe, stranger] = await Promise.all([
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('ES256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
  ]);
  [k8sKey, ghaKey, spiffeKey, strangerKey] = [k8s.privateKey, gha.privateKey, spiffe.privateKey, stranger.privateKey];
  const file = {
    issuers: [
      {
        issuer: K8S,
        jwks: { keys: [await publicJwk(k8s, 'k8s-1')] },
        audience: 'suite',
        subjects: [{ match: 'system:serviceaccount:payments:*', scope: ['tool:invoice:*'], maxLifetime: '15m' }],
      },
      {
        issuer: GHA,
        jwks: { keys: [await publicJwk(gha, 'gha-1')] },
        audience: 'https://suite.example',
        subjects: [{ match: 'repo:acme/*:ref:refs/heads/main', scope: ['tool:deploy:*'] }],
      },
      {
        issuer: SPIFFE,
        jwks: { keys: [await publicJwk(spiffe, 'spiffe-1')] },
        audience: 'suite',
        subjects: [{ match: 'spiffe://prod.example/ns/agents/*', scope: ['tool:search'] }],
      },
    ],
  };
  const parsed = parseTrustedIssuers(JSON.stringify(file));
  if (!parsed.ok) throw new Error(parsed.message);
  trust = parsed.config;
});

describe('verifying an outside subject token', () => {
  it('accepts a Kubernetes service-account token and names the subject <issuer>#<sub>', async () => {
    const r = await verifySubjectToken(await k8sToken(), trust, keysFor, NOW);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.verified.subject).toBe(`${K8S}#system:serviceaccount:payments:invoicer`);
    expect(r.verified.rule.scope).toEqual(['tool:invoice:*']);
    expect(r.verified.replayKey).toMatch(/^https:\/\/kubernetes.*#jti:/);
  });

  it('accepts a GitHub Actions OIDC token for a main-branch run', async () => {
    const r = await verifySubjectToken(await ghaToken(), trust, keysFor, NOW);
    expect(r.ok && r.verified.subject).toBe(`${GHA}#repo:acme/api:ref:refs/heads/main`);
  });

  it('accepts a SPIFFE JWT-SVID without a jti and keys its replay on the token digest', async () => {
    const r = await verifySubjectToken(await svid(), trust, keysFor, NOW);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.verified.replayKey).toMatch(/#sha256:[A-Za-z0-9_-]{43}$/);
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    [
      'a token from an untrusted issuer',
      () => sign(strangerKey, 'RS256', 'x', { iss: 'https://evil.example', sub: 's', aud: 'suite' }),
      /issuer is not trusted/,
    ],
    [
      'a forged token (a trusted iss signed by another key)',
      () => sign(strangerKey, 'RS256', 'k8s-1', { iss: K8S, sub: 'system:serviceaccount:payments:invoicer', aud: 'suite' }),
      /bad signature/,
    ],
    ['an expired token', () => k8sToken({}, { iat: NOW - 3600, exp: NOW - 120 }), /expired/],
    ['a token not yet valid', () => k8sToken({}, { nbf: NOW + 600 }), /nbf/],
    ['a token issued in the future', () => k8sToken({}, { iat: NOW + 600, exp: NOW + 1200 }), /iat|future/],
    ['a token for another audience', () => k8sToken({ aud: 'vault' }), /claim aud/],
    ['a token whose subject no rule maps', () => k8sToken({ sub: 'system:serviceaccount:kube-system:default' }), /not mapped/],
    ['a token from a branch the rule does not name', () => ghaToken({ sub: 'repo:acme/api:ref:refs/heads/feature' }), /not mapped/],
    ['a token with an unknown kid', () => sign(k8sKey, 'RS256', 'rotated', { iss: K8S, sub: 'system:serviceaccount:payments:x', aud: 'suite' }), /no key/],
    ['a string that is not a JWT', async () => 'not.a.jwt', /not a JWT/],
  ];
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what}`, async () => {
      const r = await verifySubjectToken(await make(), trust, keysFor, NOW);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
    });
  }

  it("refuses an HS256 token keyed with the issuer's public key text (algorithm confusion)", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(trust.issuers[0]!.jwks!.keys[0]));
    const token = await new SignJWT({ iss: K8S, sub: 'system:serviceaccount:payments:invoicer', aud: 'suite' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k8s-1' })
      .setIssuedAt(NOW)
      .setExpirationTime(NOW + 60)
      .sign(secret);
    const r = await verifySubjectToken(token, trust, keysFor, NOW);
    expect(r.ok).toBe(false);
  });
});
