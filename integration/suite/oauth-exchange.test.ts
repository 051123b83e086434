import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyObject } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Token exchange (RFC 8693) as workload identity federation (issue 32), driven by openid-client's
 * genericGrantRequest: a Kubernetes-like issuer with its keys inline, a CI-like issuer whose keys the
 * suite fetches from a jwksUri (through the outbound guard), a suite token attenuated, delegation in
 * `act`. Every refusal is invalid_grant (or invalid_scope) and on the audit trail.
 */

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const ACCESS_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const K8S = 'https://kubernetes.default.svc.cluster.local';
type Pair = Awaited<ReturnType<typeof generateKeyPair>>;

let t: TestSuite;
let dir: string;
let jwksServer: Server;
let ci: string;
let k8sKey: Pair, ciKey: Pair, stranger: Pair;
let publicClient: oidc.Configuration;
let publicClientId: string;
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };

beforeAll(async () => {
  [k8sKey, ciKey, stranger] = await Promise.all([
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('ES256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
  ]);
  const ciJwks = { keys: [{ ...(await exportJWK(ciKey.publicKey)), kid: 'ci-1', alg: 'ES256' }] };
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ciJwks));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  ci = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'exchange-'));
  const file = join(dir, 'trusted-issuers.json');
  await writeFile(
    file,
    JSON.stringify({
      issuers: [
        {
          issuer: K8S,
          jwks: { keys: [{ ...(await exportJWK(k8sKey.publicKey)), kid: 'k8s-1', alg: 'RS256' } as JWK] },
          audience: 'suite',
          subjects: [{ match: 'system:serviceaccount:payments:*', scope: ['audit:read', 'execution:read'], maxLifetime: '15m' }],
        },
        {
          issuer: ci,
          jwksUri: `${ci}/jwks`,
          audience: 'https://suite.example',
          subjects: [{ match: 'repo:acme/*:ref:refs/heads/main', scope: ['execution:read'] }],
        },
      ],
    }),
  );
  t = await startTestSuite({ SUITE_OAUTH_TRUSTED_ISSUERS: file });
  // A workload has no secret: a public client registered for token exchange only (open registration).
  const reg = await fetch(t.url('token', '/oauth/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'workloads', token_endpoint_auth_method: 'none', grant_types: [EXCHANGE] }),
  });
  expect(reg.status, await reg.clone().text()).toBe(201);
  publicClientId = ((await reg.json()) as { client_id: string }).client_id;
  publicClient = await oidc.discovery(new URL(t.url('token')), publicClientId, undefined, oidc.None(), insecure);
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function k8sToken(over: Record<string, unknown> = {}, times: { iat?: number; exp?: number } = {}, key: Pair = k8sKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: K8S, sub: 'system:serviceaccount:payments:invoicer', aud: ['suite'], jti: randomUUID(), ...over })
    .setProtectedHeader({ alg: 'RS256', kid: 'k8s-1' })
    .setIssuedAt(times.iat ?? now - 5)
    .setExpirationTime(times.exp ?? now + 600)
    .sign(key.privateKey);
}
const ciToken = (over: Record<string, unknown> = {}) =>
  new SignJWT({ iss: ci, sub: 'repo:acme/api:ref:refs/heads/main', aud: 'https://suite.example', repository: 'acme/api', ...over })
    .setProtectedHeader({ alg: 'ES256', kid: 'ci-1' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(ciKey.privateKey);

async function exchange(params: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(t.url('token', '/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: EXCHANGE, client_id: publicClientId, ...params }).toString(),
  });
  return { status: res.status, body: await res.json() };
}

async function denials(): Promise<string[]> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(publicClientId)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  const { entries } = (await res.json()) as { entries: Array<{ action: string; result: string; reason: string }> };
  return entries.filter((e) => e.action === 'oauth:token' && e.result === 'deny').map((e) => e.reason);
}

describe('workload identity federation through openid-client', () => {
  it('exchanges a Kubernetes service-account token for a suite token naming <iss>#<sub>, within the rule, that an edge accepts', async () => {
    const tokens = await oidc.genericGrantRequest(publicClient, EXCHANGE, {
      subject_token: await k8sToken(),
      subject_token_type: JWT_TYPE,
      scope: 'audit:read',
    });
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'audit:read', issued_token_type: ACCESS_TYPE });
    expect(tokens.expires_in).toBeLessThanOrEqual(900);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: `${K8S}#system:serviceaccount:payments:invoicer`, scope: ['audit:read'], client_id: publicClientId });
    const res = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
  });

  it("exchanges a CI OIDC token whose issuer's keys are fetched from its jwksUri, the whole ceiling when no scope is asked", async () => {
    const tokens = await oidc.genericGrantRequest(publicClient, EXCHANGE, { subject_token: await ciToken(), subject_token_type: JWT_TYPE });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: `${ci}#repo:acme/api:ref:refs/heads/main`, scope: ['execution:read'] });
  });

  it('refuses an untrusted issuer, a forged, expired, other-audience, unmapped or replayed token with invalid_grant, and a scope above the ceiling with invalid_scope, each audited', async () => {
    const now = Math.floor(Date.now() / 1000);
    const replayed = await k8sToken();
    expect((await exchange({ subject_token: replayed, subject_token_type: JWT_TYPE })).status).toBe(200);
    const cases: Array<[string, Promise<string>, string, RegExp]> = [
      ['untrusted issuer', k8sToken({ iss: 'https://evil.example' }, {}, stranger), 'invalid_grant', /issuer is not trusted/],
      ['forged', k8sToken({}, {}, stranger), 'invalid_grant', /bad signature/],
      ['expired', k8sToken({}, { iat: now - 3600, exp: now - 120 }), 'invalid_grant', /expired/],
      ['wrong aud', k8sToken({ aud: 'vault' }), 'invalid_grant', /claim aud/],
      ['unmapped subject', k8sToken({ sub: 'system:serviceaccount:kube-system:default' }), 'invalid_grant', /not mapped/],
      ['replayed', Promise.resolve(replayed), 'invalid_grant', /already exchanged/],
    ];
    for (const [what, token, error, description] of cases) {
      const r = await exchange({ subject_token: await token, subject_token_type: JWT_TYPE });
      expect(r, what).toMatchObject({ status: 400, body: { error, error_description: expect.stringMatching(description) } });
    }
    const above = await exchange({ subject_token: await k8sToken(), subject_token_type: JWT_TYPE, scope: 'audit:read auth:token:create' });
    expect(above).toMatchObject({ status: 400, body: { error: 'invalid_scope', error_description: expect.stringMatching(/auth:token:create.*ceiling/) } });
    await expect
      .poll(denials)
      .toEqual(
        expect.arrayContaining([
          ...cases.map(([, , , d]) => expect.stringMatching(new RegExp(`^invalid_grant: .*${d.source}`))),
          expect.stringMatching(/^invalid_scope: .*auth:token:create/),
        ]),
      );
  });

  it('lets a token refused for its scope be sent again corrected (the subject token is spent only by a grant)', async () => {
    const token = await k8sToken();
    expect((await exchange({ subject_token: token, subject_token_type: JWT_TYPE, scope: 'audit:write' })).body).toMatchObject({ error: 'invalid_scope' });
    expect((await exchange({ subject_token: token, subject_token_type: JWT_TYPE, scope: 'audit:read' })).status).toBe(200);
  });
});

describe('suite tokens exchanged: attenuation and delegation', () => {
  it("narrows a suite token's scope and gives it another audience, never widening, never outliving it", async () => {
    const wide = await t.mint(['audit:read', 'execution:read'], { sub: 'planner', expiresIn: '10m' });
    const narrowed = await oidc.genericGrantRequest(publicClient, EXCHANGE, {
      subject_token: wide.token,
      subject_token_type: ACCESS_TYPE,
      scope: 'execution:read',
      resource: 'https://tools.example/api',
    });
    const claims = decodeJwt(narrowed.access_token);
    expect(claims).toMatchObject({ sub: 'planner', scope: ['execution:read'], aud: 'https://tools.example/api' });
    expect(claims.exp).toBeLessThanOrEqual(wide.exp);
    const wider = await exchange({ subject_token: wide.token, subject_token_type: ACCESS_TYPE, scope: 'execution:read audit:write' });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope', error_description: expect.stringMatching(/audit:write.*subject token/) } });
  });

  it('records an actor token as the act claim, nesting the previous actor', async () => {
    const user = await t.mint(['execution:read'], { sub: 'alice' });
    const agent = await t.mint(['execution:read'], { sub: 'agent-7' });
    const first = await exchange({ subject_token: user.token, subject_token_type: ACCESS_TYPE, actor_token: agent.token, actor_token_type: ACCESS_TYPE });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(decodeJwt(first.body.access_token)).toMatchObject({ sub: 'alice', act: { sub: 'agent-7' } });
    const tool = await t.mint(['execution:read'], { sub: 'tool-runner' });
    const second = await exchange({
      subject_token: first.body.access_token,
      subject_token_type: ACCESS_TYPE,
      actor_token: tool.token,
      actor_token_type: ACCESS_TYPE,
    });
    expect(decodeJwt(second.body.access_token)).toMatchObject({ sub: 'alice', act: { sub: 'tool-runner', act: { sub: 'agent-7' } } });
  });

  it("exchanges a DPoP-bound token only with a proof by its key (openid-client's DPoP handle), the new token bound to that key too", async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({
        grant_types: ['client_credentials', EXCHANGE],
        scope: 'audit:read execution:read',
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    const c = (await reg.json()) as { client_id: string; client_secret: string };
    const config = await oidc.discovery(new URL(t.url('token')), c.client_id, undefined, oidc.ClientSecretBasic(c.client_secret), insecure);
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('EdDSA'));
    const bound = await oidc.clientCredentialsGrant(config, { scope: 'audit:read execution:read' }, { DPoP: dpop });
    const jkt = (decodeJwt(bound.access_token).cnf as { jkt: string }).jkt;
    const without = await exchange({ subject_token: bound.access_token, subject_token_type: ACCESS_TYPE, scope: 'audit:read' });
    expect(without).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringMatching(/DPoP-bound/) } });
    const narrowed = await oidc.genericGrantRequest(
      config,
      EXCHANGE,
      { subject_token: bound.access_token, subject_token_type: ACCESS_TYPE, scope: 'audit:read' },
      { DPoP: dpop },
    );
    expect(narrowed.token_type).toBe('dpop');
    expect(decodeJwt(narrowed.access_token)).toMatchObject({ scope: ['audit:read'], cnf: { jkt } });
  });

  it("lets only the actor an outside token's may_act names act for its subject, refusing another without spending the token", async () => {
    const subjectToken = await k8sToken({ may_act: { sub: 'agent-7' } });
    const stranger = await t.mint(['audit:read'], { sub: 'agent-8' });
    const refused = await exchange({ subject_token: subjectToken, subject_token_type: JWT_TYPE, actor_token: stranger.token, actor_token_type: ACCESS_TYPE });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringMatching(/may_act/) } });
    const named = await t.mint(['audit:read'], { sub: 'agent-7' });
    const allowed = await exchange({ subject_token: subjectToken, subject_token_type: JWT_TYPE, actor_token: named.token, actor_token_type: ACCESS_TYPE });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(decodeJwt(allowed.body.access_token)).toMatchObject({ sub: `${K8S}#system:serviceaccount:payments:invoicer`, act: { sub: 'agent-7' } });
    const malformed = await exchange({
      subject_token: await k8sToken({ may_act: 'agent-7' }),
      subject_token_type: JWT_TYPE,
      actor_token: named.token,
      actor_token_type: ACCESS_TYPE,
    });
    expect(malformed.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/may_act claim is not an object/) });
    await expect.poll(denials).toEqual(expect.arrayContaining([expect.stringMatching(/may_act claim allows/)]));
  });

  it('refuses a revoked or unsigned suite token as subject or actor, and an unknown token type', async () => {
    const revoked = await t.mint(['execution:read']);
    const rv = await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: revoked.jti }),
    });
    expect(rv.status).toBeLessThan(300);
    await expect.poll(async () => (await exchange({ subject_token: revoked.token, subject_token_type: ACCESS_TYPE })).body.error).toBe('invalid_grant');
    const live = await t.mint(['execution:read']);
    expect(
      (await exchange({ subject_token: live.token, subject_token_type: ACCESS_TYPE, actor_token: 'x.y.z', actor_token_type: ACCESS_TYPE })).body,
    ).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/^actor_token/) });
    expect((await exchange({ subject_token: live.token, subject_token_type: 'urn:ietf:params:oauth:token-type:saml2' })).body).toMatchObject({
      error: 'invalid_request',
    });
  });
});

describe('the read routes the dashboard shows', () => {
  it('GET /oauth/issuers lists the trusted issuers without keys, to the admin key or a token holding oauth:read', async () => {
    const reader = await t.mint(['oauth:read'], { sub: 'dashboard-viewer' });
    const res = await fetch(t.url('token', '/oauth/issuers'), { headers: { authorization: `Bearer ${reader.token}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      issuers: [
        {
          issuer: K8S,
          audience: 'suite',
          jwksSource: 'inline',
          subjects: [{ match: 'system:serviceaccount:payments:*', scope: ['audit:read', 'execution:read'], maxLifetime: '15m' }],
        },
        {
          issuer: ci,
          audience: 'https://suite.example',
          jwksSource: 'uri',
          subjects: [{ match: 'repo:acme/*:ref:refs/heads/main', scope: ['execution:read'], maxLifetime: '1h' }],
        },
      ],
    });
    expect(JSON.stringify(body)).not.toMatch(/"kty"|"n":/);
    const admin = await fetch(t.url('token', '/oauth/issuers'), { headers: { 'x-suite-admin-key': t.adminKey } });
    expect(admin.status).toBe(200);
    const other = await t.mint(['audit:read']);
    expect((await fetch(t.url('token', '/oauth/issuers'), { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(403);
    expect((await fetch(t.url('token', '/oauth/issuers'))).status).toBe(401);
  });

  it("GET /oauth/grants lists granted and refused requests newest first, with the refusal's error", async () => {
    const granted = await exchange({
      subject_token: await k8sToken({ sub: 'system:serviceaccount:payments:grants-view' }),
      subject_token_type: JWT_TYPE,
      scope: 'execution:read',
    });
    expect(granted.status).toBe(200);
    const refused = await exchange({ subject_token: await k8sToken({ aud: 'elsewhere' }), subject_token_type: JWT_TYPE, scope: 'audit:read' });
    expect(refused.status).toBe(400);
    const reader = await t.mint(['oauth:read']);
    await expect
      .poll(async () => {
        const res = await fetch(t.url('token', '/oauth/grants?limit=2'), { headers: { authorization: `Bearer ${reader.token}` } });
        const body = (await res.json()) as { grants: unknown[] };
        if (body.grants === undefined) throw new Error(JSON.stringify(body));
        return body.grants;
      })
      .toEqual([
        {
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
          grantType: EXCHANGE,
          clientId: publicClientId,
          sub: publicClientId,
          outcome: 'refused',
          error: 'invalid_grant',
          scope: ['audit:read'],
        },
        {
          at: expect.any(String),
          grantType: EXCHANGE,
          clientId: publicClientId,
          sub: `${K8S}#system:serviceaccount:payments:grants-view`,
          outcome: 'granted',
          scope: ['execution:read'],
        },
      ]);
    const bad = await fetch(t.url('token', '/oauth/grants?limit=1e2'), { headers: { 'x-suite-admin-key': t.adminKey } });
    expect(bad.status).toBe(400);
  });
});

describe("a private_key_jwt client whose key is an enrolled identity's", () => {
  it("gets client-credentials tokens in the identity's name with the proof claim, and none at all once the identity is suspended", async () => {
    const keys = await generateKeyPair('EdDSA', { extractable: true });
    const pem = KeyObject.from(keys.publicKey).export({ type: 'spki', format: 'pem' }) as string;
    const admin = { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey };
    const enrolled = await fetch(t.url('token', '/identities'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ subject: 'ledger-agent', kind: 'agent', publicKeyPem: pem }),
    });
    expect(enrolled.status).toBe(201);
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        grant_types: ['client_credentials'],
        scope: 'execution:read',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [await exportJWK(keys.publicKey)] },
      }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    const config = await oidc.discovery(new URL(t.url('token')), clientId, undefined, oidc.PrivateKeyJwt(keys.privateKey), insecure);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'execution:read' });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'ledger-agent', prf: true, client_id: clientId });
    // A client with a key no identity holds keeps acting as itself, without the claim.
    const other = await generateKeyPair('EdDSA', { extractable: true });
    const reg2 = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        grant_types: ['client_credentials'],
        scope: 'execution:read',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [await exportJWK(other.publicKey)] },
      }),
    });
    const plainId = ((await reg2.json()) as { client_id: string }).client_id;
    const plain = await oidc.clientCredentialsGrant(
      await oidc.discovery(new URL(t.url('token')), plainId, undefined, oidc.PrivateKeyJwt(other.privateKey), insecure),
      { scope: 'execution:read' },
    );
    expect(decodeJwt(plain.access_token)).toMatchObject({ sub: plainId });
    expect(decodeJwt(plain.access_token).prf).toBeUndefined();
    const suspended = await fetch(t.url('token', '/identities/ledger-agent/suspend'), {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ reason: 'key leaked' }),
    });
    expect(suspended.status).toBe(200);
    expect((await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    // Suspended: the key authenticates nobody any more, neither as the identity nor as the client.
    await expect(oidc.clientCredentialsGrant(config, { scope: 'execution:read' })).rejects.toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/suspended identity "ledger-agent"/),
    });
  });
});
