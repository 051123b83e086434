import { randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  authorizationServerMetadata,
  oauthStatus,
  parseBasicAuth,
  parseScopeParam,
  redirectUriMatches,
  redirectUriProblem,
  scopeBeyond,
  verifyDpopProofContent,
} from './index.ts';

describe('core/oauth', () => {
  it('parses a space-delimited scope, refusing an entry the suite would not mint and dropping repeats', () => {
    expect(parseScopeParam('audit:read  audit:read execution:read')).toEqual({ ok: true, scope: ['audit:read', 'execution:read'] });
    expect(parseScopeParam(undefined)).toEqual({ ok: true, scope: [] });
    expect(parseScopeParam('openid')).toMatchObject({ ok: false });
  });

  it('finds the first scope beyond a ceiling, wildcards granting segment by segment', () => {
    expect(scopeBeyond(['audit:*'], ['audit:read'])).toBeUndefined();
    expect(scopeBeyond(['audit:read'], ['audit:read', 'auth:token:create'])).toBe('auth:token:create');
  });

  it('matches a redirect URI exactly, a loopback one on any port, and nothing altered', () => {
    const registered = ['https://app.example/cb', 'http://127.0.0.1:4000/cb'];
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/cb')).toBe(true);
    for (const altered of [
      'https://app.example/cb/',
      'https://app.example/cb?x=1',
      'https://app.example:8443/cb',
      'https://evil.example/cb',
      'http://127.0.0.1:4000/other',
      'http://localhost:4000/cb',
      'not a url',
    ]) {
      expect(redirectUriMatches(registered, altered), altered).toBe(false);
    }
  });

  it('accepts https and loopback redirect URIs only, without fragment or credentials', () => {
    expect(redirectUriProblem('https://app.example/cb')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:4000/cb')).toBeUndefined();
    expect(redirectUriProblem('http://[::1]/cb')).toBeUndefined();
    for (const bad of ['http://app.example/cb', 'https://a.example/cb#x', 'https://u:p@a.example/', 'myapp://cb', 'not a url']) {
      expect(redirectUriProblem(bad), bad).toEqual(expect.any(String));
    }
  });

  it('reads client_secret_basic with the RFC 6749 §2.3.1 form-encoding, and nothing malformed', () => {
    const header = `Basic ${Buffer.from('a%3Ab:s%20e+cret').toString('base64')}`;
    expect(parseBasicAuth(header)).toEqual({ clientId: 'a:b', secret: 's e cret' });
    expect(parseBasicAuth('Basic !!!')).toBeUndefined();
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
    expect(parseBasicAuth(`Basic ${Buffer.from('%zz:x').toString('base64')}`)).toBeUndefined();
  });

  it('answers invalid_client with 401 and the rest of the grant errors with 400', () => {
    expect(oauthStatus('invalid_client')).toBe(401);
    expect(oauthStatus('invalid_grant')).toBe(400);
    expect(oauthStatus('temporarily_unavailable')).toBe(503);
  });

  it('names the device endpoint only with its grant, and S256 only', () => {
    const m = authorizationServerMetadata({ issuer: 'https://as.example', grantTypes: ['client_credentials'], scopes: ['a:b'] });
    expect(m).toMatchObject({ token_endpoint: 'https://as.example/oauth/token', code_challenge_methods_supported: ['S256'] });
    expect(m).not.toHaveProperty('device_authorization_endpoint');
  });

  describe('DPoP proof content (RFC 9449 §4.3)', () => {
    const htu = 'https://rs.example/x';
    const now = Math.floor(Date.now() / 1000);
    async function proof(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
      const keys = await generateKeyPair('EdDSA', { extractable: true });
      const jwk = await exportJWK(keys.publicKey);
      const jwt = await new SignJWT({ htm: 'GET', htu, jti: randomUUID(), iat: now, ...claims })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk, ...header })
        .sign(keys.privateKey);
      return { jwt, jkt: await calculateJwkThumbprint(jwk) };
    }

    it("accepts a good proof and gives its key's thumbprint; the query of htu does not count", async () => {
      const p = await proof({});
      expect(await verifyDpopProofContent(p.jwt, { htm: 'GET', htu: `${htu}?a=1`, now })).toMatchObject({ ok: true, jkt: p.jkt });
    });

    it('refuses another method, another URL, an old iat, a missing ath, and a wrong typ', async () => {
      expect(await verifyDpopProofContent((await proof({ htm: 'POST' })).jwt, { htm: 'GET', htu, now })).toMatchObject({ ok: false });
      expect(await verifyDpopProofContent((await proof({ htu: 'https://rs.example/y' })).jwt, { htm: 'GET', htu, now })).toMatchObject({ ok: false });
      expect(await verifyDpopProofContent((await proof({ iat: now - 600 })).jwt, { htm: 'GET', htu, now })).toMatchObject({ ok: false });
      expect(await verifyDpopProofContent((await proof({})).jwt, { htm: 'GET', htu, now, accessToken: 'x' })).toMatchObject({
        ok: false,
        problem: expect.stringMatching(/ath/),
      });
      expect(await verifyDpopProofContent((await proof({}, { typ: 'JWT' })).jwt, { htm: 'GET', htu, now })).toMatchObject({ ok: false });
    });
  });
});
