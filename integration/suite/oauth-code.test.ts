import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The authorization-code grant with PKCE (issue 32) through the consent page the suite serves, driven
 * by openid-client (a client nobody here wrote) and by hand for what a client library refuses to send:
 * wrong verifier, reused code, altered or unregistered redirect URI, no state, the plain method. Each
 * refusal is checked on the audit trail and in suite_oauth_grants_total.
 */

let t: TestSuite;
let issuer: URL;
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };
const REDIRECT = 'http://127.0.0.1:43117/callback';

beforeAll(async () => {
  t = await startTestSuite();
  issuer = new URL(t.url('token'));
}, machineTimeout(60_000));
afterAll(() => t?.stop());

interface Entry {
  action: string;
  resource: string;
  result: string;
  reason: string;
  subject: string;
}
async function audit(subject: string): Promise<Entry[]> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Entry[] }).entries;
}

async function registerPublic(grants = ['authorization_code', 'refresh_token'], redirects = [REDIRECT]): Promise<string> {
  const res = await fetch(t.url('token', '/oauth/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Desk App', token_endpoint_auth_method: 'none', grant_types: grants, redirect_uris: redirects }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The hidden fields of a consent page, as a browser would post them back. */
function formOf(html: string): { requestId: string; csrf: string } {
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(requestId, html).toBeDefined();
  return { requestId: requestId!, csrf: csrf! };
}

/** Submit a consent page as a person would: the ticked scopes, a lifetime, a button, a credential. */
async function submitConsent(
  html: string,
  fields: { decision: 'approve' | 'deny'; scope?: string[]; lifetime?: string; adminKey?: string; token?: string },
): Promise<Response> {
  const { requestId, csrf } = formOf(html);
  const body = new URLSearchParams({ request_id: requestId, csrf, decision: fields.decision, lifetime: fields.lifetime ?? '3600' });
  for (const s of fields.scope ?? []) body.append('scope', s);
  if (fields.adminKey !== undefined) body.set('admin_key', fields.adminKey);
  if (fields.token !== undefined) body.set('consent_token', fields.token);
  return fetch(t.url('token', '/oauth/consent'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
    redirect: 'manual',
  });
}

async function grantsCounted(outcome: string, grantType = 'authorization_code'): Promise<number> {
  const text = await (await fetch(t.url('token', '/metrics'))).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('suite_oauth_grants_total{') && l.includes(`grant_type="${grantType}"`) && l.includes(`outcome="${outcome}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** One authorization request up to its consent page; what openid-client would have built. */
async function authorize(config: oidc.Configuration, params: Record<string, string>): Promise<Response> {
  const url = oidc.buildAuthorizationUrl(config, params);
  return fetch(url, { redirect: 'manual' });
}

async function approvedCode(config: oidc.Configuration, clientScope = 'audit:read execution:read') {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const page = await authorize(config, {
    redirect_uri: REDIRECT,
    scope: clientScope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  expect(page.status).toBe(200);
  const approved = await submitConsent(await page.text(), { decision: 'approve', scope: clientScope.split(' '), adminKey: t.adminKey });
  expect(approved.status).toBe(303);
  return { verifier, state, callback: new URL(approved.headers.get('location')!) };
}

describe('the authorization-code grant with PKCE, through openid-client', () => {
  it('shows the consent page, and a person approving a narrowed scope and a shorter lifetime gives exactly that', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    expect(config.serverMetadata()).toMatchObject({ response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
    expect(config.serverMetadata().grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code']),
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const before = await grantsCounted('issued');
    const page = await authorize(config, {
      redirect_uri: REDIRECT,
      scope: 'audit:read execution:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource: t.url('token', '/mcp'),
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('Authorize Desk App');
    expect(html).toContain('<label for="admin-key">Admin key</label>');
    expect(html).toContain('>audit:read</label>');
    expect(html).toContain('>execution:read</label>');
    expect(html).toContain(t.url('token', '/mcp'));
    // The person unticks execution:read and picks 15 minutes.
    const approved = await submitConsent(html, { decision: 'approve', scope: ['audit:read'], lifetime: '900', adminKey: t.adminKey });
    expect(approved.status).toBe(303);
    const callback = new URL(approved.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(t.url('token'));
    const tokens = await oidc.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      { resource: t.url('token', '/mcp') },
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'audit:read', expires_in: 900 });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'admin', scope: ['audit:read'], client_id: clientId, aud: t.url('token', '/mcp') });
    // The refresh token rotates as the refresh grant's do.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.scope).toBe('audit:read');
    expect(await grantsCounted('issued')).toBeGreaterThan(before);
    await expect
      .poll(() => audit('admin'))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:consent', result: 'allow', reason: expect.stringContaining('narrowed from audit:read execution:read') }),
        ]),
      );
    await expect
      .poll(() => audit(clientId))
      .toEqual(expect.arrayContaining([expect.objectContaining({ action: 'oauth:token', resource: 'grant:authorization_code', result: 'allow' })]));
  });

  it('redirects a denial back with error=access_denied and the state, and audits it', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const state = oidc.randomState();
    const page = await authorize(config, {
      redirect_uri: REDIRECT,
      scope: 'audit:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state,
    });
    const denied = await submitConsent(await page.text(), { decision: 'deny' });
    expect(denied.status).toBe(303);
    const callback = new URL(denied.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    await expect(oidc.authorizationCodeGrant(config, callback, { expectedState: state })).rejects.toMatchObject({ error: 'access_denied' });
    await expect
      .poll(() => audit('anonymous'))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:consent', result: 'deny', reason: expect.stringContaining(`access_denied: denied ${clientId}`) }),
        ]),
      );
  });

  it("approves with a token holding oauth:consent only within that token's own scope, and refuses a wrong admin key on the page", async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const consenter = await t.mint(['oauth:consent', 'audit:read'], { sub: 'alice' });
    const ask = async () => {
      const page = await authorize(config, {
        redirect_uri: REDIRECT,
        scope: 'audit:read execution:read',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        state: 's',
      });
      return page.text();
    };
    const html = await ask();
    const wrongKey = await submitConsent(html, { decision: 'approve', scope: ['audit:read'], adminKey: 'not-the-key' });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.text()).toContain('That admin key is not this suite');
    const beyond = await submitConsent(html, { decision: 'approve', scope: ['audit:read', 'execution:read'], token: consenter.token });
    expect(beyond.status).toBe(403);
    expect(await beyond.text()).toContain('You cannot approve execution:read');
    const noConsent = await t.mint(['audit:read'], { sub: 'bob' });
    expect((await submitConsent(html, { decision: 'approve', scope: ['audit:read'], token: noConsent.token })).status).toBe(403);
    const ok = await submitConsent(html, { decision: 'approve', scope: ['audit:read'], token: consenter.token });
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
    await expect.poll(() => audit('alice')).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'oauth:consent', result: 'allow' })]));
  });
});

describe('the authorization-code grant refuses, and audits', () => {
  it('a wrong PKCE verifier, without spending the code', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const { state, callback, verifier } = await approvedCode(config);
    await expect(
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: state }),
    ).rejects.toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/PKCE/) });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.access_token).toEqual(expect.any(String));
    await expect
      .poll(() => audit(clientId))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:token', result: 'deny', reason: expect.stringMatching(/^invalid_grant: code_verifier does not match/) }),
        ]),
      );
  });

  it('a reused code, revoking the access token and refresh token it issued', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const { state, callback, verifier } = await approvedCode(config);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    const live = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(live.status).toBe(200);
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/reused/),
    });
    await expect
      .poll(async () => (await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } })).status)
      .toBe(401);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect
      .poll(() => audit(clientId))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:token', result: 'deny', reason: expect.stringMatching(/^invalid_grant: authorization code reused/) }),
        ]),
      );
  });

  it('two redemptions of one code sent at once, leaving no token issued from it usable whichever lands first', async () => {
    const clientId = await registerPublic(['authorization_code']);
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    for (let round = 0; round < 3; round++) {
      const { callback, verifier } = await approvedCode(config);
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }).toString();
      const redeem = () =>
        fetch(t.url('token', '/oauth/token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      const answers = await Promise.all([redeem(), redeem()]);
      const bodies = (await Promise.all(answers.map((a) => a.json()))) as Array<{ access_token?: string; error?: string }>;
      expect(answers.map((a) => a.status).filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      expect(bodies.filter((b) => b.error !== undefined).map((b) => b.error)).not.toHaveLength(0);
      for (const b of bodies) if (b.error !== undefined) expect(b.error).toBe('invalid_grant');
      for (const b of bodies) {
        if (b.access_token === undefined) continue;
        await expect
          .poll(async () => (await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${b.access_token}` } })).status)
          .toBe(401);
      }
    }
  });

  it('a redirect URI that is not registered, or altered, in the page itself (no redirect); and an altered one at the token endpoint', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const challenge = await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier());
    for (const redirect of ['https://evil.example/callback', `${REDIRECT}/x`, `${REDIRECT}?next=evil`]) {
      const res = await authorize(config, {
        redirect_uri: redirect,
        scope: 'audit:read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
      });
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/redirect_uri/) });
    }
    const { callback, verifier } = await approvedCode(config);
    const res = await fetch(t.url('token', '/oauth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: callback.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: 'http://127.0.0.1:43117/other',
      }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri differs/) });
    await expect
      .poll(() => audit(clientId))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            action: 'oauth:authorize',
            result: 'deny',
            reason: expect.stringMatching(/redirect_uri is not one this client registered/),
          }),
          expect.objectContaining({ action: 'oauth:token', result: 'deny', reason: expect.stringMatching(/redirect_uri differs/) }),
        ]),
      );
  });

  it('a code redeemed by another client', async () => {
    const clientId = await registerPublic();
    const other = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const { callback, verifier } = await approvedCode(config);
    const res = await fetch(t.url('token', '/oauth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: other,
        code: callback.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      }).toString(),
    });
    expect(await res.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/another client/) });
  });

  it('a missing state and the plain challenge method, redirected back with invalid_request', async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const verifier = oidc.randomPKCECodeVerifier();
    const noState = await authorize(config, {
      redirect_uri: REDIRECT,
      scope: 'audit:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    expect(noState.status).toBe(303);
    const back = new URL(noState.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/state is required/);
    const plain = await authorize(config, {
      redirect_uri: REDIRECT,
      scope: 'audit:read',
      code_challenge: verifier,
      code_challenge_method: 'plain',
      state: 'st',
    });
    const plainBack = new URL(plain.headers.get('location')!);
    expect(plainBack.searchParams.get('error')).toBe('invalid_request');
    expect(plainBack.searchParams.get('error_description')).toMatch(/plain is not accepted/);
    expect(plainBack.searchParams.get('state')).toBe('st');
    const none = await authorize(config, { redirect_uri: REDIRECT, scope: 'audit:read', state: 'st' });
    expect(new URL(none.headers.get('location')!).searchParams.get('error_description')).toMatch(/code_challenge is required/);
    await expect
      .poll(() => audit(clientId))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:authorize', result: 'deny', reason: 'invalid_request: state is required' }),
          expect.objectContaining({ action: 'oauth:authorize', result: 'deny', reason: expect.stringMatching(/plain is not accepted/) }),
        ]),
      );
    expect(await grantsCounted('invalid_request')).toBeGreaterThanOrEqual(3);
  });

  it("a consent form posted with another request's CSRF token, and a request decided twice", async () => {
    const clientId = await registerPublic();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const page = async () =>
      (
        await authorize(config, {
          redirect_uri: REDIRECT,
          scope: 'audit:read',
          code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
          code_challenge_method: 'S256',
          state: 's',
        })
      ).text();
    const a = await page();
    const b = await page();
    const forged = a.replace(formOf(a).csrf, formOf(b).csrf);
    expect((await submitConsent(forged, { decision: 'approve', scope: ['audit:read'], adminKey: t.adminKey })).status).toBe(400);
    expect((await submitConsent(a, { decision: 'approve', scope: ['audit:read'], adminKey: t.adminKey })).status).toBe(303);
    const twice = await submitConsent(a, { decision: 'approve', scope: ['audit:read'], adminKey: t.adminKey });
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('already decided');
  });

  it('a confidential client authenticates at the token endpoint to redeem its code', async () => {
    const res = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ client_name: 'web app', grant_types: ['authorization_code'], redirect_uris: ['https://app.example/cb'], scope: 'audit:read' }),
    });
    const { client_id: clientId, client_secret: secret } = (await res.json()) as { client_id: string; client_secret: string };
    const config = await oidc.discovery(issuer, clientId, secret, oidc.ClientSecretBasic(secret), insecure);
    const verifier = oidc.randomPKCECodeVerifier();
    const beyond = await authorize(config, {
      redirect_uri: 'https://app.example/cb',
      scope: 'audit:read execution:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's',
    });
    expect(new URL(beyond.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    const page = await authorize(config, {
      redirect_uri: 'https://app.example/cb',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's',
    });
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example;");
    const approved = await submitConsent(await page.text(), { decision: 'approve', scope: ['audit:read'], adminKey: t.adminKey });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(approved.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: 's' });
    expect(tokens.scope).toBe('audit:read');
    expect(tokens.refresh_token).toBeUndefined();
  });
});
