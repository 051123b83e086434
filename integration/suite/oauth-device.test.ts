import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The device grant (RFC 8628, issue 32): openid-client asks and polls as an agent on a server would,
 * a person enters the user code on the suite's page and approves on the same consent page as the
 * code grant's. Polling answers authorization_pending, slow_down, access_denied and expired_token.
 */

let t: TestSuite;
let issuer: URL;
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

beforeAll(async () => {
  t = await startTestSuite();
  issuer = new URL(t.url('token'));
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function audit(subject: string): Promise<Array<{ action: string; result: string; reason: string }>> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Array<{ action: string; result: string; reason: string }> }).entries;
}

async function registerDeviceClient(): Promise<string> {
  const res = await fetch(t.url('token', '/oauth/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'build agent', token_endpoint_auth_method: 'none', grant_types: [DEVICE, 'refresh_token'] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** What a person does: opens the page, types the code, and decides on the consent page shown. */
async function personDecides(userCode: string, decision: 'approve' | 'deny', scope: string[]): Promise<Response> {
  const entry = await fetch(t.url('token', '/oauth/device'));
  expect(await entry.text()).toContain('<label for="user-code">User code</label>');
  const page = await fetch(t.url('token', `/oauth/device?user_code=${encodeURIComponent(userCode.toLowerCase().replace('-', ' '))}`));
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Authorize build agent');
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const body = new URLSearchParams({ request_id: requestId, csrf, decision, admin_key: t.adminKey, lifetime: '900' });
  for (const s of scope) body.append('scope', s);
  return fetch(t.url('token', '/oauth/consent'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
    redirect: 'manual',
  });
}

const poll = async (clientId: string, deviceCode: string) => {
  const res = await fetch(t.url('token', '/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE, client_id: clientId, device_code: deviceCode }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the device grant (RFC 8628)', () => {
  it('is discovered, and openid-client polls until a person approves a narrowed scope by the user code', { timeout: machineTimeout(60_000) }, async () => {
    const clientId = await registerDeviceClient();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    expect(config.serverMetadata().device_authorization_endpoint).toBe(t.url('token', '/oauth/device_authorization'));
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'audit:read execution:read' });
    expect(started).toMatchObject({ verification_uri: t.url('token', '/oauth/device'), expires_in: 600, interval: 5 });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri_complete).toBe(`${t.url('token', '/oauth/device')}?user_code=${started.user_code}`);
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const decided = await personDecides(started.user_code, 'approve', ['audit:read']);
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('Approved');
    const tokens = await polling;
    expect(tokens).toMatchObject({ scope: 'audit:read', expires_in: 900 });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'admin', scope: ['audit:read'], client_id: clientId });
    const res = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    // Spent: the device code gives one token.
    expect((await poll(clientId, started.device_code)).body).toMatchObject({ error: expect.stringMatching(/invalid_grant|slow_down/) });
    await expect
      .poll(() => audit(clientId))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:device_authorization', result: 'allow' }),
          expect.objectContaining({ action: 'oauth:token', result: 'allow', reason: expect.stringContaining('device code approved by admin') }),
        ]),
      );
  });

  it('answers authorization_pending, then slow_down to a poll inside the interval, then access_denied once the person denies', async () => {
    const clientId = await registerDeviceClient();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'audit:read' });
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    const interval = await t.suite.storage!.pool.oneFirst(sql.unsafe`select interval_seconds from oauth_authorizations where user_code = ${started.user_code}`);
    expect(interval).toBe(10);
    const denied = await personDecides(started.user_code, 'deny', []);
    expect(await denied.text()).toContain('Denied');
    // The next poll after the interval: pretend the interval passed by moving the last poll back.
    await t.suite.storage!.pool.query(
      sql.unsafe`update oauth_authorizations set last_polled_at = now() - interval '1 minute' where user_code = ${started.user_code}`,
    );
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
    await expect
      .poll(() => audit('admin'))
      .toEqual(
        expect.arrayContaining([expect.objectContaining({ action: 'oauth:consent', result: 'deny', reason: expect.stringContaining(`denied ${clientId}`) })]),
      );
  });

  it('answers expired_token once the device code has expired, and the page refuses its user code', async () => {
    const clientId = await registerDeviceClient();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'audit:read' });
    await t.suite.storage!.pool.query(
      sql.unsafe`update oauth_authorizations set expires_at = now() - interval '1 second' where user_code = ${started.user_code}`,
    );
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const page = await fetch(t.url('token', `/oauth/device?user_code=${started.user_code}`));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('That code is not waiting for approval');
    await expect(oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 })).rejects.toMatchObject({ error: 'expired_token' });
  });

  it("refuses a client not registered for the device grant, another client's device code, and an unknown one", async () => {
    const codeOnly = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'x',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        redirect_uris: ['http://127.0.0.1/cb'],
      }),
    });
    const { client_id: other } = (await codeOnly.json()) as { client_id: string };
    const res = await fetch(t.url('token', '/oauth/device_authorization'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: other, scope: 'audit:read' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unauthorized_client' });
    const clientId = await registerDeviceClient();
    const second = await registerDeviceClient();
    const config = await oidc.discovery(issuer, clientId, undefined, oidc.None(), insecure);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'audit:read' });
    expect((await poll(second, started.device_code)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await poll(clientId, 'not-a-device-code')).body).toMatchObject({ error: 'invalid_grant' });
    await expect
      .poll(() => audit(other))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'oauth:device_authorization', result: 'deny', reason: expect.stringMatching(/^unauthorized_client/) }),
        ]),
      );
  });
});
