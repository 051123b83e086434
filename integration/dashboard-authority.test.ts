import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The attention, tokens and audit views in a real browser against a real suite
 * (testing/dashboard-browser.ts): every row comes from data this file makes through the API.
 */
let d: DashboardBrowser;
let recorder: string;
let tokenKeeper: string;
let auditor: string;
let narrow: string;

async function record(body: Record<string, unknown>): Promise<{ id: string; seq: number }> {
  const res = await fetch(d.t.url('token', '/executions'), {
    method: 'POST',
    headers: { authorization: `Bearer ${recorder}`, 'content-type': 'application/json' },
    body: JSON.stringify({ module: 'dashboard-authority', action: 'act', input: { at: Math.random() }, outcome: 'success', ...body }),
  });
  expect(res.status).toBe(201);
  const made = (await res.json()) as { id: string; seq: number };
  return made;
}

async function validate(candidate: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(d.t.url('token', '/auth/token/validate'), {
    method: 'POST',
    headers: { authorization: `Bearer ${tokenKeeper}`, 'content-type': 'application/json' },
    body: JSON.stringify({ token: candidate }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
const live = (page: Page) => page.waitForSelector('[data-testid="connection"]:has-text("open")');

beforeAll(async () => {
  d = await startDashboardBrowser();
  recorder = (await d.t.mint(['execution:read', 'execution:record'], { sub: 'attention-person' })).token;
  tokenKeeper = (await d.t.mint(['auth:token:create', 'auth:token:revoke', 'auth:token:validate', 'execution:read'], { sub: 'token-person' })).token;
  auditor = (await d.t.mint(['audit:read'], { sub: 'auditor' })).token;
  narrow = (await d.t.mint(['queue:read'], { sub: 'narrow-person' })).token;
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
});

describe('attention and authority', () => {
  test("lists failed and refused records with their reasons, each subject's exercised authority, and re-reads live", async () => {
    const failed = await record({ subject: 'agent-failing', outcome: 'failure', scope: ['files:write'] });
    const refused = await record({ subject: 'agent-refused', governance: { decision: 'DENIED', policyRef: 'policy-7' } });
    const fine = await record({ subject: 'agent-fine' });
    const page = await d.open(recorder, '#/attention');
    await page.waitForSelector(`[data-testid="attention-table"] tr[data-id="${failed.id}"] li[data-kind="outcome"]`);
    await page.waitForSelector(`[data-testid="attention-table"] tr[data-id="${refused.id}"] li[data-kind="governance"]`);
    // Recorded without an enrolled identity: unproven, like most records, so not listed until the
    // identity reason is ticked (issue 36, item 7: every record was flagged by default).
    expect(await page.locator(`tr[data-id="${fine.id}"]`).count()).toBe(0);
    expect(await page.isChecked('input[name="reason"][value="identity"]')).toBe(false);
    await page.check('input[name="reason"][value="identity"]');
    await page.waitForSelector(`tr[data-id="${fine.id}"] li[data-kind="identity"]`);
    expect(page.url()).toContain('reason=outcome%2Cidentity%2Ccapability%2Cgovernance');
    expect(await page.getAttribute(`tr[data-id="${failed.id}"] a[href*="records"]`, 'href')).toBe(`#/records/${failed.id}`);
    const failing = await page.waitForSelector('[data-testid="authority-table"] tr[data-subject="agent-failing"]');
    expect(await failing.textContent()).toContain('files:write ×1');
    expect(await failing.textContent()).toContain('failure ×1');

    // Without "identity" the merely unproven record leaves the list; the filter is in the link.
    await page.uncheck('input[name="reason"][value="identity"]');
    await page.waitForSelector(`tr[data-id="${fine.id}"]`, { state: 'detached' });
    expect(page.url()).not.toContain('reason=');
    await page.waitForSelector(`tr[data-id="${failed.id}"]`);

    // Live: a failure recorded now appears in both lists without a reload.
    await live(page);
    const late = await record({ subject: 'agent-late', outcome: 'timeout' });
    await page.waitForSelector(`tr[data-id="${late.id}"] li[data-kind="outcome"]`, { timeout: machineTimeout(5000) });
    await page.waitForSelector('[data-testid="authority-table"] tr[data-subject="agent-late"]', { timeout: machineTimeout(5000) });
    expect(await page.textContent('[data-testid="attention-live"]')).toContain('Last re-read at');

    // A burst of appends is read again at most once a second: one re-read now and one at the end, not one per record.
    await page.waitForTimeout(1100);
    let reads = 0;
    page.on('request', (r) => {
      if (r.url().includes('/executions/attention')) reads += 1;
    });
    // Sent together, so that they land within about a second even on a busy machine; the bound allows
    // one re-read per second they took to land, and the one after them.
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 6 }, () => record({ subject: 'agent-burst', outcome: 'failure' })));
    const landedS = Math.ceil((Date.now() - started) / 1000);
    for (const r of burst) await page.waitForSelector(`tr[data-id="${r.id}"]`, { timeout: machineTimeout(5000) });
    await page.waitForTimeout(1200);
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(Math.min(5, landedS + 2));
    await d.shot(page, 'attention');

    // A subject's link narrows the authority list to it.
    await page.click('[data-testid="authority-table"] tr[data-subject="agent-refused"] th a:text("agent-refused")');
    await expect.poll(() => page.locator('[data-testid="authority-table"] tbody tr').count()).toBe(1);
    expect(page.url()).toContain('subject=agent-refused');
    await page.close();
  });
});

describe('tokens and revocation', () => {
  test("mints a narrower token from the pasted one and shows the server's refusal of a broader scope", async () => {
    const page = await d.open(tokenKeeper, '#/tokens');
    await page.waitForSelector('[data-testid="your-token"]:has-text("token-person")');
    // Only the pasted token's own scopes are offered.
    const offered = await page.$$eval('input[name="mint-scope"]', (els) => els.map((e) => (e as HTMLInputElement).value).sort());
    expect(offered).toEqual(['auth:token:create', 'auth:token:revoke', 'auth:token:validate', 'execution:read']);

    await page.fill('#mint-sub', 'delegate-reader');
    await page.check('input[name="mint-scope"][value="execution:read"]');
    await page.click('button:text("Mint a narrower token")');
    const minted = (await (await page.waitForSelector('#minted-narrower')).inputValue()).trim();
    const claims = await validate(minted);
    expect(claims.status).toBe(200);
    expect(claims.body).toMatchObject({ valid: true, sub: 'delegate-reader', scope: ['execution:read'] });

    // A scope the pasted token does not hold, typed in: the token service refuses it, and the view says why.
    await page.uncheck('input[name="mint-scope"][value="execution:read"]');
    await page.fill('#mint-extra', 'audit:read');
    await page.click('button:text("Mint a narrower token")');
    const refusal = await page.waitForSelector('[data-testid="mint-refusal"]');
    expect(await refusal.textContent()).toContain('cannot issue scope "audit:read": the calling token does not hold it');
    expect(await page.$('#minted-narrower')).toBeNull();
    await page.close();
  });

  test('mints any token with the admin key, which is used once and kept nowhere', async () => {
    const page = await d.open(narrow, '#/tokens');
    await page.waitForSelector('#admin-key');
    await page.fill('#admin-sub', 'admin-made');
    await page.fill('#admin-scope', 'audit:read schedule:read');
    await page.fill('#admin-key', 'not-the-admin-key');
    await page.click('button:text("Mint with the admin key")');
    expect(await (await page.waitForSelector('[data-testid="admin-refusal"]')).textContent()).toContain('Refused by the token service');
    expect(await page.inputValue('#admin-key')).toBe('');

    await page.fill('#admin-key', d.t.adminKey);
    await page.click('button:text("Mint with the admin key")');
    const minted = (await (await page.waitForSelector('#minted-admin')).inputValue()).trim();
    expect((await validate(minted)).body).toMatchObject({ valid: true, sub: 'admin-made', scope: ['audit:read', 'schedule:read'] });
    expect(await page.inputValue('#admin-key')).toBe('');
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }) + document.cookie);
    expect(stored).not.toContain(d.t.adminKey);
    await page.close();
  });

  test('a token revoked through the view fails validation, and each revocation appears live in the list', async () => {
    const victim = await d.t.mint(['execution:read'], { sub: 'victim' });
    const second = await d.t.mint(['execution:read'], { sub: 'second-victim' });
    const page = await d.open(tokenKeeper, '#/tokens');
    await page.waitForSelector('[data-testid="revocations"]');
    await live(page);

    await page.fill('#validate-token', victim.token);
    await page.click('button:text("Validate")');
    await expect.poll(() => page.textContent('[data-testid="validate-result"]')).toContain('victim');
    expect(await page.textContent('[data-testid="validate-result"]')).toContain('execution:read');

    await page.fill('#revoke-what', victim.jti);
    await page.click('button:text("Revoke")');
    await expect.poll(() => page.textContent('[data-testid="revoke-result"]')).toContain(`Revoked ${victim.jti}`);
    await page.waitForSelector(`[data-testid="revocations"] tr[data-jti="${victim.jti}"]`, { timeout: machineTimeout(5000) });

    await page.click('button:text("Validate")');
    await expect.poll(() => page.textContent('[data-testid="validate-result"]')).toContain('Not valid: TOKEN_REVOKED');
    expect(await validate(victim.token)).toMatchObject({ status: 400, body: { valid: false, error: 'TOKEN_REVOKED' } });

    // By the token itself, and a revocation made elsewhere (the API) shows up too.
    await page.fill('#revoke-what', second.token);
    await page.click('button:text("Revoke")');
    await page.waitForSelector(`[data-testid="revocations"] tr[data-jti="${second.jti}"]`, { timeout: machineTimeout(5000) });
    const third = await d.t.mint(['execution:read'], { sub: 'third-victim' });
    const res = await fetch(d.t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': d.t.adminKey },
      body: JSON.stringify({ jti: third.jti }),
    });
    expect(res.status).toBe(200);
    await page.waitForSelector(`[data-testid="revocations"] tr[data-jti="${third.jti}"]`, { timeout: machineTimeout(5000) });
    await d.shot(page, 'tokens');
    await page.close();
  });
});

describe('audit', () => {
  test('the audit trail filters by decision, subject and time, pages, and verifies', async () => {
    // A refusal to audit: the narrow token may not read the trail.
    expect((await fetch(d.t.url('token', '/audit'), { headers: { authorization: `Bearer ${narrow}` } })).status).toBe(403);
    // Audit entries are appended in batches: wait until the refusal is in the trail.
    await expect
      .poll(async () => {
        const res = await fetch(d.t.url('token', '/audit?subject=narrow-person&result=deny'), { headers: { authorization: `Bearer ${auditor}` } });
        return ((await res.json()) as { total: number }).total;
      })
      .toBeGreaterThan(0);
    const page = await d.open(auditor, '#/audit');
    await page.waitForSelector('[data-testid="audit-table"] tbody tr');
    const allText = await page.textContent('[data-testid="audit-count"]');
    const results = () => page.$$eval('[data-testid="audit-table"] tbody tr', (rows) => [...new Set(rows.map((r) => r.getAttribute('data-result')))]);
    expect((await results()).sort()).toEqual(['allow', 'deny']);

    await page.selectOption('#audit-result', 'deny');
    await page.click('button:text("Apply filters")');
    await expect.poll(results).toEqual(['deny']);
    expect(await page.textContent('[data-testid="audit-count"]')).not.toBe(allText);
    expect(page.url()).toContain('result=deny');

    await page.fill('#audit-subject', 'narrow-person');
    await page.click('button:text("Apply filters")');
    await expect
      .poll(() => page.$$eval('[data-testid="audit-table"] tbody tr', (rows) => [...new Set(rows.map((r) => r.getAttribute('data-subject')))]))
      .toEqual(['narrow-person']);
    expect(await page.textContent('[data-testid="audit-table"] tbody')).toContain('GET /audit');

    // A window that ends before the suite started holds nothing.
    await page.fill('#audit-to', '2001-01-01T00:00');
    await page.click('button:text("Apply filters")');
    await expect.poll(() => page.textContent('[data-testid="audit-count"]')).toBe('No entries match.');

    await page.click('button:text("Clear")');
    await expect.poll(results).toEqual(expect.arrayContaining(['allow', 'deny']));
    await page.selectOption('#audit-limit', '25');
    await page.click('button:text("Apply filters")');
    await expect.poll(() => page.textContent('[data-testid="audit-count"]')).toMatch(/^Entries 1–25 of \d+\./);
    await page.click('button:text("Next page")');
    await expect.poll(() => page.textContent('[data-testid="audit-count"]')).toMatch(/^Entries 26–/);

    await page.click('button:text("Verify the audit trail")');
    await expect
      .poll(() => page.textContent('[data-testid="audit-verify-result"]'), { timeout: machineTimeout(15_000) })
      .toMatch(/^valid: \d+ entries checked/);
    await page.click('button:text("Previous page")');
    await expect.poll(() => page.textContent('[data-testid="audit-count"]')).toMatch(/^Entries 1–25/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await d.shot(page, 'audit');
    await page.close();
  });
});

describe('scopes and small screens', () => {
  test("a token without each view's scope is told so on every view", async () => {
    const page = await d.open(narrow, '#/attention');
    await expect.poll(() => page.locator('.not-permitted').count()).toBe(2);
    expect(await page.textContent('.not-permitted')).toContain('Not permitted: this token cannot read the records needing attention (scope execution:read)');

    await page.click('nav a:text("Tokens")');
    await page.waitForSelector('[data-testid="your-token"]:has-text("narrow-person")');
    const tokenNotices = await page.locator('.not-permitted').allTextContents();
    expect(tokenNotices).toEqual([
      'Not permitted: this token cannot mint tokens (it does not grant auth:token:create).',
      'Not permitted: this token cannot revoke tokens (it does not grant auth:token:revoke).',
      'Not permitted: this token cannot validate tokens (it does not grant auth:token:validate).',
      'This token does not grant auth:token:revoke, so the live socket sends it no revocations.',
    ]);

    await page.click('nav a:text("Audit")');
    await page.waitForSelector('.not-permitted:has-text("the audit trail (scope audit:read)")');
    await page.close();
  });

  test('at a phone width (390 px) none of the three views scrolls sideways', async () => {
    const everything = (
      await d.t.mint(['execution:read', 'auth:token:create', 'auth:token:revoke', 'auth:token:validate', 'audit:read'], { sub: 'phone-person' })
    ).token;
    const page = await d.open(everything, '#/attention', 390);
    await page.waitForSelector('[data-testid="authority-table"]');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.click('nav a:text("Tokens")');
    await page.waitForSelector('[data-testid="revocations"]');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.click('nav a:text("Audit")');
    await page.waitForSelector('[data-testid="audit-table"] tbody tr');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.close();
  });
});

describe('a stopped token listener', () => {
  // Last in this file: the token listener does not come back.
  test('tokens and audit show UNKNOWN with the reason, and the admin-key mint says the service could not be reached', async () => {
    const everything = (await d.t.mint(['auth:token:create', 'audit:read'], { sub: 'stopped-person' })).token;
    const page = await d.open(everything, '#/audit');
    await page.waitForSelector('[data-testid="audit-table"]');
    await d.t.suite.edges.find((e) => e.service === 'token')!.stop();

    await page.reload();
    const unknown = await page.waitForSelector('.unknown');
    expect(await unknown.getAttribute('title')).toContain('SERVICE_UNAVAILABLE');
    expect(await page.$('[data-testid="audit-table"]')).toBeNull();

    await page.click('nav a:text("Tokens")');
    await page.waitForSelector('.unknown');
    expect(await page.$('[data-testid="your-token"]')).toBeNull();
    await page.fill('#admin-sub', 'nobody');
    await page.fill('#admin-scope', 'audit:read');
    await page.fill('#admin-key', d.t.adminKey);
    await page.click('button:text("Mint with the admin key")');
    expect(await (await page.waitForSelector('[data-testid="admin-refusal"]')).textContent()).toContain('The token service could not be reached (UNKNOWN)');
    await page.close();
  });
});
