import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentialsToken, createSuiteClient, deviceToken, OAuthTokenError, type DeviceUserCode } from '../client/src/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The client library's OAuth helpers (client/README.md) against a running suite: a token by client
 * credentials used for a typed call, and a token by the device grant approved on the consent page.
 */
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('the client library obtains tokens by OAuth', () => {
  it('by client credentials, and the token serves a typed call; a wrong secret is an OAuthTokenError', async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ client_name: 'reporting agent', grant_types: ['client_credentials'], scope: 'audit:read' }),
    });
    const c = (await reg.json()) as { client_id: string; client_secret: string };
    const token = await clientCredentialsToken({ issuer: t.url('token'), clientId: c.client_id, clientSecret: c.client_secret });
    expect(token).toMatchObject({ tokenType: 'Bearer', scope: 'audit:read', expiresIn: 3600 });
    const suite = createSuiteClient({ urls: { token: t.url('token') }, token: token.accessToken });
    const page = await suite.token.get('/audit', { query: { limit: 1 } });
    expect(page.entries).toEqual(expect.any(Array));
    await expect(clientCredentialsToken({ issuer: t.url('token'), clientId: c.client_id, clientSecret: 'wrong' })).rejects.toMatchObject({
      error: 'invalid_client',
    });
    await expect(
      clientCredentialsToken({ issuer: t.url('token'), clientId: c.client_id, clientSecret: c.client_secret, scope: 'execution:read' }),
    ).rejects.toBeInstanceOf(OAuthTokenError);
  });

  it('by the device grant, once a person approves the user code it was handed', { timeout: machineTimeout(30_000) }, async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'cli', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    let shown: (code: DeviceUserCode) => void = () => undefined;
    const handed = new Promise<DeviceUserCode>((resolve) => {
      shown = resolve;
    });
    const pending = deviceToken({ issuer: t.url('token'), clientId, scope: 'audit:read', onUserCode: (code) => shown(code) });
    const code = await handed;
    const html = await (await fetch(code.verificationUriComplete)).text();
    const body = new URLSearchParams({
      request_id: /name="request_id" value="([^"]+)"/.exec(html)![1]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!,
      decision: 'approve',
      admin_key: t.adminKey,
      scope: 'audit:read',
    });
    expect(
      (
        await fetch(t.url('token', '/oauth/consent'), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        })
      ).status,
    ).toBe(200);
    const token = await pending;
    expect(token.scope).toBe('audit:read');
  });
});
