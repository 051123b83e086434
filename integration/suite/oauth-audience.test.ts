import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * SUITE_AUDIENCE and RFC 8707 resources together (issue 32, noticed in session 12): with SUITE_AUDIENCE
 * set, every edge refused a token the token endpoint minted for /mcp's own resource identifier, so a
 * deployment with an audience could not use resource indicators at all. Now the suite's own resource is
 * accepted beside SUITE_AUDIENCE, and another resource's token is still refused.
 */
const PUBLIC = 'https://suite.example';
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite({ SUITE_AUDIENCE: 'suite-internal', SUITE_PUBLIC_URL: PUBLIC });
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function clientToken(resource: string | undefined): Promise<string> {
  const reg = await fetch(t.url('token', '/oauth/register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
    body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'execution:read audit:read', token_endpoint_auth_method: 'client_secret_post' }),
  });
  const c = (await reg.json()) as { client_id: string; client_secret: string };
  const res = await fetch(t.url('token', '/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: c.client_id,
      client_secret: c.client_secret,
      ...(resource !== undefined ? { resource } : {}),
    }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const listTools = (token: string) =>
  fetch(t.url('token', '/mcp'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('SUITE_AUDIENCE with resource indicators', () => {
  it("accepts at /mcp a token minted for /mcp's own resource, and SUITE_AUDIENCE's tokens everywhere", async () => {
    const forMcp = await clientToken(`${PUBLIC}/mcp`);
    expect(decodeJwt(forMcp).aud).toBe(`${PUBLIC}/mcp`);
    expect((await listTools(forMcp)).status).toBe(200);
    const plain = await clientToken(undefined);
    expect(decodeJwt(plain).aud).toBe('suite-internal');
    expect((await listTools(plain)).status).toBe(200);
    expect((await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${plain}` } })).status).toBe(200);
  });

  it("still refuses another resource's token at /mcp and at the other edges", async () => {
    const other = await clientToken('https://other.example/api');
    expect((await listTools(other)).status).toBe(401);
    const res = await fetch(t.url('token', '/audit?limit=1'), { headers: { authorization: `Bearer ${other}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'TOKEN_AUDIENCE_MISMATCH' } });
  });
});
