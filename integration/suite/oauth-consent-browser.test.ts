import { createServer, type Server } from 'node:http';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { testBrowser } from '../../testing/dashboard-browser.ts';
import { axeViolations, describeViolations } from '../../testing/axe.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The consent page served by the suite, driven by a person in Chromium (issue 32): the MCP SDK's own
 * OAuth client connects to /mcp knowing only its URL (401, resource metadata, discovery, open
 * registration as a public client, authorization code with PKCE), the person approves a narrowed
 * scope; a denial; the device grant's user code entered by hand; axe on the real pages; the page
 * refused inside another site's frame, and the attempt audited.
 */

let t: TestSuite;
let browser: Browser;
let callbackServer: Server;
let callbackBase: string;
/** What the browser brought back to the client's redirect URI, in arrival order. */
const arrivals: URL[] = [];
let attackerServer: Server;
let attackerBase: string;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
};

beforeAll(async () => {
  t = await startTestSuite();
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', callbackBase);
    if (url.pathname === '/callback') arrivals.push(url); // not the browser's favicon request
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><html lang="en"><title>back in the app</title><main><h1>You may close this window</h1></main></html>');
  });
  callbackBase = await listen(callbackServer);
  attackerServer = createServer((req, res) => {
    const target = new URL(req.url ?? '/', attackerBase).searchParams.get('src') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>win a prize</title><iframe id="f" src="${target.replace(/"/g, '&quot;')}" title="prize"></iframe>`);
  });
  attackerBase = await listen(attackerServer);
  browser = await testBrowser();
}, machineTimeout(90_000));

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
  await new Promise((resolve) => attackerServer?.close(resolve));
  await t?.stop();
});

async function audit(subject: string): Promise<Array<{ action: string; result: string; reason: string }>> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Array<{ action: string; result: string; reason: string }> }).entries;
}

/** The person: signs in with the admin key, unticks every scope but `keep`, and presses a button. */
async function decide(page: Page, button: 'Approve' | 'Deny', keep?: string[]): Promise<void> {
  if (button === 'Approve') await page.getByLabel('Admin key').fill(t.adminKey);
  if (keep !== undefined) {
    for (const box of await page.getByRole('checkbox').all()) {
      const label = (await box.getAttribute('value')) ?? '';
      if (!keep.includes(label)) await box.uncheck();
    }
  }
  await page.getByRole('button', { name: button }).click();
}

/** An MCP client's OAuth provider as a desktop app would write it: a loopback redirect, state, memory storage. */
class DesktopProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return `${callbackBase}/callback`;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Desktop MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'desk-state-1';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the consent page, driven in Chromium', () => {
  it("lets the MCP SDK's OAuth client reach /mcp from its URL alone, a person approving one scope of those asked", {
    timeout: machineTimeout(60_000),
  }, async () => {
    const mcpUrl = new URL(t.url('token', '/mcp'));
    const provider = new DesktopProvider();
    const first = new Client({ name: 'desktop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^cl_/);
    expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl.href);
    const page = await browser.newPage();
    await page.goto(provider.authorizationUrl!.href);
    await page.getByRole('heading', { name: 'Authorize Desktop MCP client' }).waitFor();
    expect(await page.getByLabel('execution:read').isChecked()).toBe(true);
    expect(await page.getByRole('checkbox').count()).toBeGreaterThan(1);
    await decide(page, 'Approve', ['execution:read']);
    await page.waitForURL(`${callbackBase}/callback**`);
    const back = arrivals.at(-1)!;
    expect(back.searchParams.get('state')).toBe('desk-state-1');
    await page.close();
    await transport.finishAuth(back.searchParams.get('code')!);
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain('get_execution');
    expect(tools).not.toContain('mint_token');
    expect(decodeJwt(provider.saved!.access_token)).toMatchObject({
      sub: 'admin',
      scope: ['execution:read'],
      aud: mcpUrl.href,
      client_id: provider.info!.client_id,
    });
    await client.close();
  });

  it('sends a denial back to the client as error=access_denied', async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Denied App',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        redirect_uris: [`${callbackBase}/callback`],
      }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    const config = await oidc.discovery(new URL(t.url('token')), clientId, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${callbackBase}/callback`,
      scope: 'audit:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'deny-me',
    });
    const page = await browser.newPage();
    await page.goto(url.href);
    await decide(page, 'Deny');
    await page.waitForURL(`${callbackBase}/callback**`);
    const back = arrivals.at(-1)!;
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('deny-me');
    expect(back.searchParams.get('code')).toBeNull();
    await page.close();
  });

  it("takes the device's user code typed by a person, then the consent, and the device gets its token", { timeout: machineTimeout(60_000) }, async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'CI runner', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    const config = await oidc.discovery(new URL(t.url('token')), clientId, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'audit:read execution:read' });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const page = await browser.newPage();
    await page.goto(started.verification_uri);
    await page.getByLabel('User code').fill(started.user_code.toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Authorize CI runner' }).waitFor();
    await page.getByLabel('Token lifetime').selectOption('900');
    await decide(page, 'Approve', ['execution:read']);
    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    await page.close();
    const tokens = await polling;
    expect(tokens).toMatchObject({ scope: 'execution:read', expires_in: 900 });
  });

  it('passes axe: the consent page and the user-code page as served', { timeout: machineTimeout(60_000) }, async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(t.url('token', '/oauth/device'));
    const entry = await axeViolations(page, '/oauth/device');
    expect(entry, describeViolations(entry)).toEqual([]);
    const provider = new DesktopProvider();
    await expect(
      new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(t.url('token', '/mcp')), { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await page.goto(provider.authorizationUrl!.href);
    const consent = await axeViolations(page, '/oauth/authorize');
    expect(consent, describeViolations(consent)).toEqual([]);
    await context.close();
  });

  it("is not shown inside another site's frame, and the attempt is audited", async () => {
    const page = await browser.newPage();
    await page.goto(`${attackerBase}/?src=${encodeURIComponent(t.url('token', '/oauth/device'))}`);
    await page.waitForLoadState('load');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await frame!.locator('button').count()).toBe(0);
    await page.close();
    await expect
      .poll(() => audit('anonymous'))
      .toEqual(
        expect.arrayContaining([expect.objectContaining({ action: 'oauth:authorize', result: 'deny', reason: expect.stringContaining('inside a frame') })]),
      );
  });
});
