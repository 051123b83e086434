import { randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import * as oidc from 'openid-client';
import { sql } from 'slonik';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { DpopReplayCache, presentationProblem } from '../../edge-http/index.ts';
import { edgeVerifier } from '../../cli/edge.ts';
import type { FastifyRequest } from 'fastify';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The suite as an OAuth 2.1 authorization server (issue 32), driven by clients nobody here wrote:
 * openid-client (discovery, registration, client credentials, introspection, revocation, DPoP) and the
 * MCP SDK's OAuth providers connecting to /mcp from its URL alone. Every refusal is checked on the audit trail.
 */

let t: TestSuite;
let issuer: URL;
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };
beforeAll(async () => {
  t = await startTestSuite();
  issuer = new URL(t.url('token'));
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function registerAdmin(metadata: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(t.url('token', '/oauth/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
    body: JSON.stringify(metadata),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function audit(subject: string): Promise<Array<{ action: string; resource: string; result: string; reason: string }>> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Array<{ action: string; resource: string; result: string; reason: string }> }).entries;
}

async function tokenRequest(body: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(t.url('token', '/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, body: await res.json() };
}

const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

async function assertion(key: CryptoKey, alg: string, clientId: string, aud: string, jti = randomUUID()): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(aud)
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
}

async function dpopProof(key: { privateKey: CryptoKey; publicKey: CryptoKey }, htm: string, htu: string, extra: Record<string, unknown> = {}): Promise<string> {
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT({ htm, htu, jti: randomUUID(), ...extra }).setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk }).setIssuedAt().sign(key.privateKey);
}

describe('discovery (RFC 8414) through openid-client', () => {
  it('finds every endpoint, the auth methods, S256 and the DPoP algorithms from the issuer alone', async () => {
    const config = await oidc.discovery(issuer, 'nobody', undefined, undefined, insecure);
    const m = config.serverMetadata();
    expect(m.issuer).toBe(t.url('token'));
    expect(m).toMatchObject({
      token_endpoint: t.url('token', '/oauth/token'),
      registration_endpoint: t.url('token', '/oauth/register'),
      introspection_endpoint: t.url('token', '/oauth/introspect'),
      revocation_endpoint: t.url('token', '/oauth/revoke'),
      token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      dpop_signing_alg_values_supported: ['EdDSA', 'Ed25519', 'ES256'],
    });
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'refresh_token']));
  });
});

describe('registration (RFC 7591) and client_credentials', () => {
  it('registers a confidential client with an initial access token, and gets a token within its ceiling by client_secret_basic', async () => {
    const initial = await t.mint(['oauth:client:register', 'audit:read', 'execution:read'], { sub: 'platform-team' });
    const config = await oidc.dynamicClientRegistration(
      issuer,
      {
        client_name: 'reporting agent',
        grant_types: ['client_credentials'],
        scope: 'audit:read execution:read',
        token_endpoint_auth_method: 'client_secret_basic',
      },
      undefined,
      { initialAccessToken: initial.token, ...insecure },
    );
    const { client_id: clientId, client_secret: secret } = config.clientMetadata();
    expect(clientId).toMatch(/^cl_/);
    expect(secret).toEqual(expect.any(String));
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'audit:read' });
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'audit:read', expires_in: 3600 });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: clientId, scope: ['audit:read'], client_id: clientId });
    // The token is an ordinary capability token: every edge takes it.
    const res = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    // Only the hash of the secret is stored.
    const stored = await t.suite.storage!.pool.oneFirst(sql.unsafe`select secret_hash from oauth_clients where client_id = ${clientId}`);
    expect(stored).not.toContain(secret);
    await expect
      .poll(() => audit('platform-team'))
      .toEqual(expect.arrayContaining([expect.objectContaining({ action: 'oauth:client:register', result: 'allow' })]));
    await expect
      .poll(() => audit(clientId))
      .toEqual(expect.arrayContaining([expect.objectContaining({ action: 'oauth:token', resource: 'grant:client_credentials', result: 'allow' })]));
  });

  it('refuses open registration of a confidential client, and an initial access token without oauth:client:register', async () => {
    const open = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'audit:read' }),
    });
    expect(open.status).toBe(401);
    expect(await open.json()).toMatchObject({ error: 'invalid_token' });
    const narrow = await t.mint(['audit:read'], { sub: 'not-a-registrar' });
    const res = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${narrow.token}` },
      body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'audit:read' }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' });
    await expect
      .poll(() => audit('anonymous'))
      .toEqual(
        expect.arrayContaining([expect.objectContaining({ action: 'oauth:client:register', result: 'deny', reason: expect.stringMatching(/^invalid_token/) })]),
      );
  });

  it('registers a public client openly for person-approved grants only, with loopback or https redirect URIs', async () => {
    const post = (body: unknown) =>
      fetch(t.url('token', '/oauth/register'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await post({
      client_name: 'desktop',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['http://127.0.0.1:33418/callback'],
    });
    expect(ok.status).toBe(201);
    expect(await ok.json()).not.toHaveProperty('client_secret');
    const cc = await post({ token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] });
    expect(await cc.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const http = await post({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], redirect_uris: ['http://evil.example/cb'] });
    expect(await http.json()).toMatchObject({ error: 'invalid_redirect_uri' });
  });

  it("refuses a scope above the ceiling (invalid_scope), and a ceiling above the initial access token's own", async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_post' });
    const r = await tokenRequest({
      grant_type: 'client_credentials',
      scope: 'audit:read auth:token:create',
      client_id: c.client_id,
      client_secret: c.client_secret,
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    await expect
      .poll(() => audit(c.client_id))
      .toEqual(expect.arrayContaining([expect.objectContaining({ action: 'oauth:token', result: 'deny', reason: expect.stringMatching(/^invalid_scope/) })]));
    const initial = await t.mint(['oauth:client:register', 'audit:read']);
    const res = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${initial.token}` },
      body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'audit:read execution:record' }),
    });
    expect(await res.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('answers RFC 6749 errors, never a 500: wrong secret 401 invalid_client, unknown grant, missing grant_type, JSON body, duplicate parameter', async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read' });
    const wrong = await tokenRequest({ grant_type: 'client_credentials' }, basic(c.client_id, 'nope'));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect((await tokenRequest({ grant_type: 'password' }, basic(c.client_id, c.client_secret))).body).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, basic(c.client_id, c.client_secret))).body).toMatchObject({
      error: 'unauthorized_client',
    });
    expect((await tokenRequest({}, basic(c.client_id, c.client_secret))).body).toMatchObject({ error: 'invalid_request' });
    const json = await fetch(t.url('token', '/oauth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    const dup = await fetch(t.url('token', '/oauth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(c.client_id, c.client_secret) },
      body: 'grant_type=client_credentials&scope=a:b&scope=c:d',
    });
    expect(await dup.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('private_key_jwt (RFC 7523)', () => {
  it('authenticates with Ed25519 (EdDSA and Ed25519 names) and ES256 assertions, through openid-client and by hand', async () => {
    for (const [alg, keyAlg] of [
      ['EdDSA', 'EdDSA'],
      ['Ed25519', 'EdDSA'],
      ['ES256', 'ES256'],
    ] as const) {
      const keys = await generateKeyPair(keyAlg, { extractable: true });
      const jwk = await exportJWK(keys.publicKey);
      const c = await registerAdmin({
        grant_types: ['client_credentials'],
        scope: 'execution:read',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      });
      const r = await tokenRequest({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(keys.privateKey, alg, c.client_id, t.url('token', '/oauth/token')),
      });
      expect(r.status, `${alg}: ${JSON.stringify(r.body)}`).toBe(200);
    }
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const c = await registerAdmin({
      grant_types: ['client_credentials'],
      scope: 'execution:read',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [await exportJWK(keys.publicKey)] },
    });
    const config = await oidc.discovery(issuer, c.client_id, undefined, oidc.PrivateKeyJwt(keys.privateKey), insecure);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'execution:read' });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: c.client_id, scope: ['execution:read'] });
  });

  it('refuses an assertion replayed, signed by another key, or for another audience, each invalid_client and audited', async () => {
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const other = await generateKeyPair('EdDSA', { extractable: true });
    const c = await registerAdmin({
      grant_types: ['client_credentials'],
      scope: 'execution:read',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [await exportJWK(keys.publicKey)] },
    });
    const form = (a: string) => ({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: a,
    });
    const once = await assertion(keys.privateKey, 'EdDSA', c.client_id, t.url('token'));
    expect((await tokenRequest(form(once))).status).toBe(200);
    const replay = await tokenRequest(form(once));
    expect(replay).toMatchObject({ status: 401, body: { error: 'invalid_client', error_description: expect.stringMatching(/replay/) } });
    expect(await tokenRequest(form(await assertion(other.privateKey, 'EdDSA', c.client_id, t.url('token'))))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(await tokenRequest(form(await assertion(keys.privateKey, 'EdDSA', c.client_id, 'https://elsewhere.example')))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    await expect.poll(async () => (await audit(c.client_id)).filter((e) => e.result === 'deny' && e.reason.startsWith('invalid_client')).length).toBe(3);
  });
});

describe('introspection (RFC 7662) and revocation (RFC 7009)', () => {
  it('introspects a live token as active, revokes it through openid-client, and then every edge refuses it and introspection says inactive', async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_basic' });
    const config = await oidc.discovery(issuer, c.client_id, undefined, oidc.ClientSecretBasic(c.client_secret), insecure);
    const { access_token: token } = await oidc.clientCredentialsGrant(config, { scope: 'audit:read' });
    const live = await oidc.tokenIntrospection(config, token);
    expect(live).toMatchObject({ active: true, sub: c.client_id, client_id: c.client_id, scope: 'audit:read', token_type: 'Bearer' });
    expect((await oidc.tokenIntrospection(config, 'not.a.token')).active).toBe(false);
    await oidc.tokenRevocation(config, token);
    expect((await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(await oidc.tokenIntrospection(config, token)).toEqual({ active: false });
    await expect
      .poll(() => audit(c.client_id))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:introspect', result: 'allow' }),
          expect.objectContaining({ action: 'oauth:introspect', result: 'deny', reason: 'inactive: TOKEN_REVOKED' }),
          expect.objectContaining({ action: 'oauth:revoke', result: 'allow' }),
        ]),
      );
  });

  it("refuses revoking another client's token", async () => {
    const a = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_post' });
    const b = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_post' });
    const { body } = await tokenRequest({ grant_type: 'client_credentials', client_id: a.client_id, client_secret: a.client_secret });
    const res = await fetch(t.url('token', '/oauth/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: body.access_token, client_id: b.client_id, client_secret: b.client_secret }).toString(),
    });
    expect(res.status).toBe(400);
    expect((await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${body.access_token}` } })).status).toBe(200);
  });
});

describe('refresh tokens', () => {
  it('rotates on use, and a reused refresh token revokes its whole family, the access tokens with it', async () => {
    const c = await registerAdmin({
      grant_types: ['client_credentials', 'refresh_token'],
      scope: 'audit:read',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    // A refresh token as the person-facing grants issue one (their grant returns `refresh: 'new'`).
    const { storeRefreshToken } = await import('../../services/oauth/refresh.ts');
    const first = await storeRefreshToken(t.suite.storage!.pool, {
      familyId: randomUUID(),
      clientId: c.client_id,
      sub: 'a-person',
      scope: ['audit:read'],
      aud: null,
      tenantId: null,
      jkt: null,
      claims: {},
      lifetimeSeconds: 600,
      accessJti: randomUUID(),
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    const rotated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first }, basic(c.client_id, c.client_secret));
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.refresh_token).toEqual(expect.any(String));
    expect(rotated.body.refresh_token).not.toBe(first);
    expect(decodeJwt(rotated.body.access_token)).toMatchObject({ sub: 'a-person', scope: ['audit:read'] });
    const reused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first }, basic(c.client_id, c.client_secret));
    expect(reused.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/reused/) });
    // The whole family is dead: the rotated refresh token, and the access token minted with it.
    expect(
      (await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token }, basic(c.client_id, c.client_secret))).body,
    ).toMatchObject({ error: 'invalid_grant' });
    await expect
      .poll(async () => (await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${rotated.body.access_token}` } })).status)
      .toBe(401);
  });
});

describe('DPoP (RFC 9449) at the token endpoint', () => {
  it("binds a token to the proof's key through openid-client's DPoP handle (cnf.jkt, token_type DPoP)", async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_basic' });
    const config = await oidc.discovery(issuer, c.client_id, undefined, oidc.ClientSecretBasic(c.client_secret), insecure);
    const keyPair = await oidc.randomDPoPKeyPair('EdDSA');
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'audit:read' }, { DPoP: oidc.getDPoPHandle(config, keyPair) });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await calculateJwkThumbprint((await exportJWK(keyPair.publicKey)) as JWK);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ cnf: { jkt } });
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });

  it('refuses a proof for another URL, another method, or replayed (invalid_dpop_proof), each audited', async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_basic' });
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const endpoint = t.url('token', '/oauth/token');
    const ask = (proof: string) => tokenRequest({ grant_type: 'client_credentials' }, { ...basic(c.client_id, c.client_secret), dpop: proof });
    expect(await ask(await dpopProof(keys, 'POST', t.url('token', '/elsewhere')))).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } });
    expect(await ask(await dpopProof(keys, 'GET', endpoint))).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } });
    const proof = await dpopProof(keys, 'POST', endpoint);
    expect((await ask(proof)).status).toBe(200);
    expect(await ask(proof)).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof', error_description: expect.stringMatching(/replay/) } });
    await expect.poll(async () => (await audit(c.client_id)).filter((e) => e.reason.startsWith('invalid_dpop_proof')).length).toBe(3);
  });
});

describe('DPoP (RFC 9449) at the edges and /mcp', () => {
  // One client for the bound tokens of this block: registration is rate limited per address (20 a minute).
  let bindingClient: Promise<Record<string, any>> | undefined;
  async function boundToken(): Promise<{ token: string; keys: { privateKey: CryptoKey; publicKey: CryptoKey } }> {
    bindingClient ??= registerAdmin({
      grant_types: ['client_credentials'],
      scope: 'audit:read execution:read',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const c = await bindingClient;
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const r = await tokenRequest(
      { grant_type: 'client_credentials' },
      { ...basic(c.client_id, c.client_secret), dpop: await dpopProof(keys, 'POST', t.url('token', '/oauth/token')) },
    );
    expect(r.body.token_type).toBe('DPoP');
    return { token: r.body.access_token, keys };
  }
  const ath = async (token: string) => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('base64url');

  it("accepts a bound token with a proof by its key through openid-client's fetchProtectedResource, and refuses it as Bearer, audited", async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'audit:read', token_endpoint_auth_method: 'client_secret_basic' });
    const config = await oidc.discovery(issuer, c.client_id, undefined, oidc.ClientSecretBasic(c.client_secret), insecure);
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('EdDSA'));
    const { access_token: token } = await oidc.clientCredentialsGrant(config, { scope: 'audit:read' }, { DPoP: dpop });
    const ok = await oidc.fetchProtectedResource(config, token, new URL(t.url('token', '/audit?limit=1')), 'GET', undefined, undefined, { DPoP: dpop });
    expect(ok.status).toBe(200);
    const asBearer = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${token}` } });
    expect(asBearer.status).toBe(401);
    expect(await asBearer.json()).toMatchObject({ error: { code: 'TOKEN_INVALID', message: expect.stringMatching(/DPoP-bound/) } });
    await expect
      .poll(() => audit(c.client_id))
      .toEqual(expect.arrayContaining([expect.objectContaining({ action: 'audit:read', result: 'deny', reason: 'TOKEN_INVALID' })]));
  });

  it('refuses a proof replayed to another edge process (its own cache empty): the shared check over the bus and the durable jti table', async () => {
    const { token, keys } = await boundToken();
    const url = t.url('token', '/audit?limit=1');
    const proof = await dpopProof(keys, 'GET', url, { ath: await ath(token) });
    expect((await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } })).status).toBe(200);
    // A second edge process: the same bus and actor, a cache of its own that has never seen the proof.
    const secondEdge = edgeVerifier(t.suite.checker!, t.adminKey, undefined, t.suite.bus);
    const verified = await secondEdge.checkToken(token);
    if (!verified.ok) throw new Error(verified.error.message);
    const u = new URL(url);
    const request = { method: 'GET', protocol: 'http', host: u.host, url: `${u.pathname}${u.search}`, headers: { dpop: proof } } as unknown as FastifyRequest;
    const replay = await presentationProblem(request, verified.principal, 'dpop', token, secondEdge.dpopFirstUse, new DpopReplayCache());
    expect(replay).toEqual({ code: 'TOKEN_INVALID', message: 'the DPoP proof was already used (jti replay, at another edge)' });
    // Without the shared check (the old per-process cache alone) the same replay passed.
    expect(await presentationProblem(request, verified.principal, 'dpop', token, undefined, new DpopReplayCache())).toBeUndefined();
    // A fresh proof passes the second edge once.
    const fresh = await dpopProof(keys, 'GET', url, { ath: await ath(token) });
    const freshRequest = { ...request, headers: { dpop: fresh } } as unknown as FastifyRequest;
    expect(await presentationProblem(freshRequest, verified.principal, 'dpop', token, secondEdge.dpopFirstUse, new DpopReplayCache())).toBeUndefined();
  });

  it('refuses at an edge a proof for another URL, another method, another key, or replayed', async () => {
    const { token, keys } = await boundToken();
    const other = await generateKeyPair('EdDSA', { extractable: true });
    const url = t.url('token', '/audit?limit=1');
    const get = (proof: string) => fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    const a = await ath(token);
    expect((await get(await dpopProof(keys, 'GET', t.url('token', '/executions'), { ath: a }))).status).toBe(401);
    expect((await get(await dpopProof(keys, 'POST', url, { ath: a }))).status).toBe(401);
    expect((await get(await dpopProof(other, 'GET', url, { ath: a }))).status).toBe(401);
    expect((await get(await dpopProof(keys, 'GET', url))).status).toBe(401);
    const proof = await dpopProof(keys, 'GET', url, { ath: a });
    expect((await get(proof)).status).toBe(200);
    const replay = await get(proof);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: { message: expect.stringMatching(/replay/) } });
  });

  it('at /mcp: a bound token as Bearer is 401, with its proof it lists the tools', async () => {
    const { token, keys } = await boundToken();
    const mcp = t.url('token', '/mcp');
    const post = (headers: Record<string, string>) =>
      fetch(mcp, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const bearer = await post({ authorization: `Bearer ${token}` });
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const ok = await post({ authorization: `DPoP ${token}`, dpop: await dpopProof(keys, 'POST', mcp, { ath: await ath(token) }) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });
});

describe("the MCP SDK's OAuth clients at /mcp, from its URL alone", () => {
  const mcpUrl = () => new URL(t.url('token', '/mcp'));

  it('connects with ClientCredentialsProvider: 401, resource metadata, discovery, token, tools', async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'execution:read', token_endpoint_auth_method: 'client_secret_basic' });
    const provider = new ClientCredentialsProvider({
      clientId: c.client_id,
      clientSecret: c.client_secret,
      scope: 'execution:read',
      expectedIssuer: t.url('token'),
    });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain('get_execution');
    expect(tools).not.toContain('mint_token');
    // RFC 8707: the SDK asked for the /mcp resource, which became the token's audience.
    expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({ aud: t.url('token', '/mcp'), sub: c.client_id });
    await client.close();
  });

  it('connects with PrivateKeyJwtProvider (Ed25519)', async () => {
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const c = await registerAdmin({
      grant_types: ['client_credentials'],
      scope: 'execution:read',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [await exportJWK(keys.publicKey)] },
    });
    const provider = new PrivateKeyJwtProvider({
      clientId: c.client_id,
      privateKey: (await exportJWK(keys.privateKey)) as Record<string, unknown>,
      algorithm: 'EdDSA',
      scope: 'execution:read',
      expectedIssuer: t.url('token'),
    });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('refuses at /mcp a token issued for another resource (no token passthrough), audited', async () => {
    const c = await registerAdmin({ grant_types: ['client_credentials'], scope: 'execution:read', token_endpoint_auth_method: 'client_secret_basic' });
    const { body } = await tokenRequest({ grant_type: 'client_credentials', resource: 'https://other.example/api' }, basic(c.client_id, c.client_secret));
    expect(decodeJwt(body.access_token).aud).toBe('https://other.example/api');
    const res = await fetch(t.url('token', '/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${body.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await expect
      .poll(() => audit(c.client_id))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            action: 'mcp:connect',
            result: 'deny',
            reason: expect.stringMatching(/^TOKEN_AUDIENCE_MISMATCH: the token was issued for another resource than /),
          }),
        ]),
      );
  });
});

describe('metrics', () => {
  it('counts token requests by grant type and outcome on /metrics', async () => {
    const metrics = await (await fetch(t.url('token', '/metrics'))).text();
    expect(metrics).toMatch(/^suite_oauth_grants_total\{grant_type="client_credentials",outcome="issued"\} [1-9]/m);
    expect(metrics).toMatch(/^suite_oauth_grants_total\{grant_type="client_credentials",outcome="invalid_scope"\} [1-9]/m);
    expect(metrics).toMatch(/^suite_oauth_grants_total\{grant_type="refresh_token",outcome="invalid_grant"\} [1-9]/m);
  });
});

describe('client administration', () => {
  it('lists clients without secrets and deletes one, admin only', async () => {
    const c = await registerAdmin({ client_name: 'to delete', grant_types: ['client_credentials'], scope: 'audit:read' });
    const list = await (await fetch(t.url('token', '/oauth/clients?limit=500'), { headers: { 'x-suite-admin-key': t.adminKey } })).json();
    const listed = list.clients.find((x: { clientId: string }) => x.clientId === c.client_id);
    expect(listed).toMatchObject({ clientName: 'to delete', tokenEndpointAuthMethod: 'client_secret_basic', scope: ['audit:read'] });
    expect(JSON.stringify(list)).not.toContain(c.client_secret);
    expect((await fetch(t.url('token', '/oauth/clients'))).status).toBe(401);
    const del = await fetch(t.url('token', `/oauth/clients/${c.client_id}`), { method: 'DELETE', headers: { 'x-suite-admin-key': t.adminKey } });
    expect(await del.json()).toEqual({ deleted: true, clientId: c.client_id });
    expect((await tokenRequest({ grant_type: 'client_credentials' }, basic(c.client_id, c.client_secret))).status).toBe(401);
    expect((await fetch(t.url('token', `/oauth/clients/${c.client_id}`), { method: 'DELETE', headers: { 'x-suite-admin-key': t.adminKey } })).status).toBe(404);
  });
});

describe('registration rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After once an address exceeds its registration budget', async () => {
    const { REGISTRATION_RATE_LIMIT } = await import('../../services/oauth/routes/index.ts');
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= REGISTRATION_RATE_LIMIT.max; i++) {
      last = await fetch(t.url('token', '/oauth/register'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], redirect_uris: ['http://127.0.0.1/cb'] }),
      });
      statuses.push(last.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(last!.headers.get('retry-after')).toEqual(expect.any(String));
  });
});
