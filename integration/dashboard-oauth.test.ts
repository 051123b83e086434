import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { axeViolations, describeViolations } from '../testing/axe.ts';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { call } from '../testing/tenancy.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The OAuth view (issue 32, item 6) in a real browser against a real suite: the registered clients,
 * one deleted from the page by an admin; the trusted issuers and the latest grants where the suite
 * serves their routes, and no such section where it does not.
 */
let d: DashboardBrowser;
const clients: Record<'agent' | 'desktop', { client_id: string; client_secret?: string }> = {} as never;

const register = async (metadata: Record<string, unknown>, admin: boolean) => {
  const res = await call(d.t, '/oauth/register', { admin, body: metadata });
  expect(res.status, res.text).toBe(201);
  return res.body as { client_id: string; client_secret?: string };
};

beforeAll(async () => {
  d = await startDashboardBrowser();
  clients.agent = await register(
    {
      client_name: 'reporting agent',
      grant_types: ['client_credentials'],
      scope: 'audit:read execution:read',
      token_endpoint_auth_method: 'client_secret_post',
    },
    true,
  );
  clients.desktop = await register(
    {
      client_name: 'desktop app',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['http://127.0.0.1:33418/callback'],
    },
    false,
  );
  // One grant and one refusal at the token endpoint, for the grants' view where it is served.
  const token = (secret: string) =>
    fetch(d.t.url('token', '/oauth/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clients.agent.client_id, client_secret: secret, scope: 'audit:read' }),
    });
  expect((await token(clients.agent.client_secret as string)).status).toBe(200);
  expect((await token('not the secret')).status).toBe(401);
}, machineTimeout(120_000));
afterAll(async () => {
  await d?.stop();
});

describe('the OAuth view in a browser', () => {
  test('lists the registered clients with their ceilings, and an admin deletes one from the page', { timeout: machineTimeout(120_000) }, async () => {
    // oauth:read (issuers, grants) is a scope only where the suite serves those routes; elsewhere it is refused as unknown.
    const { token } = await d.t
      .mint(['oauth:client:admin', 'oauth:read'], { sub: 'oauth-admin' })
      .catch(() => d.t.mint(['oauth:client:admin'], { sub: 'oauth-admin' }));
    const [issuersServed, grantsServed] = await Promise.all([call(d.t, '/oauth/issuers', { token }), call(d.t, '/oauth/grants?limit=50', { token })]);
    const page = await d.open(token, '#/oauth');
    page.setDefaultTimeout(machineTimeout(20_000));
    const agentRow = page.locator(`tr[data-client="${clients.agent.client_id}"]`);
    await agentRow.waitFor();
    expect(await agentRow.textContent()).toMatch(/reporting agent.*secret \(post\).*client credentials.*audit:read execution:read/);
    const desktopRow = page.locator(`tr[data-client="${clients.desktop.client_id}"]`);
    expect(await desktopRow.textContent()).toMatch(/desktop app.*public \(none\).*authorization code, refresh token.*http:\/\/127\.0\.0\.1:33418\/callback/);
    expect(await page.textContent('main')).not.toContain(String(clients.agent.client_secret));

    if (issuersServed.status === 200) {
      await page.waitForSelector('[data-testid="oauth-issuers"]');
      const issuers = (issuersServed.body as { issuers: Array<{ issuer: string }> }).issuers;
      expect(await page.locator('[data-testid="oauth-issuers"] tbody tr[data-issuer]').count()).toBe(issuers.length);
    } else {
      expect(issuersServed.status).toBe(404);
    }
    if (grantsServed.status === 200) {
      await page.waitForSelector('[data-testid="oauth-grants"] tr[data-grant-type="client_credentials"]');
      expect(await page.locator('[data-testid="oauth-grants"] tr[data-grant-type]').count()).toBeGreaterThanOrEqual(2);
    } else {
      expect(grantsServed.status).toBe(404);
    }
    // A route the suite does not serve leaves no section behind: never an empty table or made-up rows.
    expect(await page.locator('[data-testid="issuers-title-section"]').count()).toBe(issuersServed.status === 200 ? 1 : 0);
    expect(await page.locator('[data-testid="grants-title-section"]').count()).toBe(grantsServed.status === 200 ? 1 : 0);

    const violations = await axeViolations(page, '#/oauth');
    expect(violations, describeViolations(violations)).toEqual([]);
    await d.shot(page, 'oauth');

    await desktopRow.getByRole('button', { name: 'Delete client desktop app' }).click();
    await desktopRow.getByRole('button', { name: 'Delete desktop app for good' }).click();
    await page.waitForSelector('[data-testid="oauth-said"]:text("Deleted client desktop app")');
    await desktopRow.waitFor({ state: 'detached' });
    const listed = (await call(d.t, '/oauth/clients?limit=500', { token })).body as { clients: Array<{ clientId: string }> };
    expect(listed.clients.map((c) => c.clientId)).toContain(clients.agent.client_id);
    expect(listed.clients.map((c) => c.clientId)).not.toContain(clients.desktop.client_id);
    await page.close();
  });

  test('tells a token without oauth:client:admin that it may not read the clients', { timeout: machineTimeout(60_000) }, async () => {
    const { token } = await d.t.mint(['execution:read']);
    const page = await d.open(token, '#/oauth');
    page.setDefaultTimeout(machineTimeout(20_000));
    await page.waitForSelector('main :text("Not permitted")');
    expect(await page.textContent('main')).toContain('oauth:client:admin');
    expect(await page.locator('[data-testid="oauth-clients"]').count()).toBe(0);
    await page.close();
  });
});
