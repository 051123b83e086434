import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The trust views in a real browser against a real suite (testing/dashboard-browser.ts): data made
 * through the trust listener's API (events with proofs, a contract with breaches, disputes, a call
 * chain with a cycle and a disagreement) is shown by each view; an appeal and a dispute's decision
 * are made from the page; a token without trust:read is told so; a stopped trust listener is UNKNOWN.
 */
let d: DashboardBrowser;
let person: string;
const made = {} as {
  exec: { id: string };
  succeeded: { id: string };
  failed: { id: string };
  contract: { id: string };
  agentBreach: { id: string };
  operatorBreach: { id: string };
  pending: { id: string };
  escalated: { id: string };
  root: { id: string };
  child: { id: string };
};

async function post<T = { id: string }>(listener: 'token' | 'trust', path: string, body: unknown, status = 201): Promise<T> {
  const res = await fetch(d.t.url(listener, path), {
    method: 'POST',
    headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(status);
  return JSON.parse(text) as T;
}

/** True when the page is wider than its window: something would scroll sideways. */
/** A signed-in page whose waits fail within 10 s, naming what was missing (the test's own limit is longer). */
async function open(token: string, hash: string, width?: number): Promise<Page> {
  const page = await d.open(token, hash, width);
  page.setDefaultTimeout(machineTimeout(10_000));
  return page;
}

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

beforeAll(async () => {
  d = await startDashboardBrowser();
  person = (await d.t.mint(['trust:*', 'execution:record', 'execution:read'], { sub: 'trust-person' })).token;
  made.exec = await post('token', '/executions', { subject: 'dash-agent', module: 'trust-test', action: 'deliver', input: { batch: 7 }, outcome: 'success' });
  made.succeeded = await post('trust', '/events', {
    subjectId: 'dash-agent',
    kind: 'task-succeeded',
    summary: 'Delivered batch 7',
    proof: { executionId: made.exec.id },
  });
  made.failed = await post('trust', '/events', {
    subjectId: 'dash-agent',
    kind: 'task-failed',
    summary: 'Missed the deadline for batch 8',
    proof: { url: 'https://example.org/batch-8.log', sha256: 'ab'.repeat(32) },
  });
  made.contract = await post('trust', '/contracts', {
    title: 'Batch delivery',
    agentId: 'dash-agent',
    operatorId: 'dash-ops',
    terms: [
      { id: 'sla', text: 'Deliver each batch within a day' },
      { id: 'input', text: 'The operator supplies clean input files' },
    ],
  });
  made.agentBreach = await post('trust', `/contracts/${made.contract.id}/breach`, { party: 'agent', term: 'sla', description: 'Batch 8 two hours late' });
  made.operatorBreach = await post('trust', `/contracts/${made.contract.id}/breach`, {
    party: 'operator',
    term: 'input',
    description: 'Input files were corrupt',
  });
  const opinions = [
    { participant: 'reviewer-1', modelFamily: 'gpt-4', position: 'refund' },
    { participant: 'reviewer-2', modelFamily: 'gpt-4', position: 'refund' },
    { participant: 'reviewer-3', modelFamily: 'claude', position: 'deny', confidence: 0.9 },
  ];
  made.pending = await post('trust', '/disputes', { title: 'Order 981', question: 'Refund the customer?', irreversible: false, opinions });
  made.escalated = await post('trust', '/disputes', {
    title: 'Delete account 77',
    question: 'Delete the account?',
    irreversible: true,
    opinions: opinions.slice(0, 1),
  });
  await post('trust', `/disputes/${made.escalated.id}/arbitrate`, {}, 200);
  made.root = await post('trust', '/interactions', {
    caller: 'planner',
    callee: 'researcher',
    chainId: 'order-981',
    outcome: 'success',
    executionId: made.exec.id,
  });
  made.child = await post('trust', '/interactions', { caller: 'researcher', callee: 'planner', parentId: made.root.id, outcome: 'pending' });
  await post('trust', `/interactions/${made.root.id}/observe`, { observer: 'auditor-1', outcome: 'success' });
  await post('trust', `/interactions/${made.root.id}/observe`, { observer: 'auditor-2', outcome: 'failure', note: 'goods never arrived' });
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
});

describe('the trust views in a browser', () => {
  test('the overview lists the agent with its score, the chain anomalies and the disputes waiting for someone', async () => {
    const page = await open(person, '#/trust');
    // 50, +2 succeeded, -2 failed, -5 the agent's open breach = 45; the operator's breach is not charged.
    await page.waitForSelector('[data-testid="scores"] tr[data-subject="dash-agent"]');
    expect(await page.textContent('tr[data-subject="dash-agent"] td:nth-child(2)')).toContain('45');
    await page.waitForSelector('[data-testid="anomalies"] li[data-anomaly="cycle"]');
    expect(await page.textContent('[data-testid="anomalies"]')).toContain('disagreement');
    expect(await page.getAttribute('[data-testid="anomalies"] li[data-anomaly="cycle"] a', 'href')).toBe('#/trust/chains/order-981');
    await page.waitForSelector(`[data-testid="pending-disputes"] tr[data-dispute="${made.pending.id}"]`);
    expect(await page.textContent(`tr[data-dispute="${made.escalated.id}"]`)).toContain('escalated');
    await d.shot(page, 'trust');
    // The subject box opens any subject's page, by keyboard.
    await page.fill('#trust-subject', 'dash-agent');
    await page.press('#trust-subject', 'Enter');
    await page.waitForSelector('h1:has-text("Subject dash-agent")');
    expect(page.url()).toMatch(/#\/trust\/subjects\/dash-agent$/);
    await page.close();
  });

  test('a subject shows its score with every record that moved it, its events with proofs linked to the execution record, and its evidence', async () => {
    const page = await open(person, '#/trust/subjects/dash-agent');
    await page.waitForSelector('[data-testid="score"]');
    expect(await page.textContent('[data-testid="score"] .score')).toBe('45');
    for (const id of [made.succeeded.id, made.failed.id, made.agentBreach.id]) await page.waitForSelector(`tr[data-contribution="${id}"]`);
    expect(await page.textContent(`tr[data-excluded="${made.operatorBreach.id}"]`)).toContain('never charged to the agent');
    await page.waitForSelector(`article[data-event="${made.succeeded.id}"] a[data-execution="${made.exec.id}"]`);
    expect(await page.getAttribute(`a[data-execution="${made.exec.id}"]`, 'href')).toBe(`#/records/${made.exec.id}`);
    expect(await page.textContent(`article[data-event="${made.failed.id}"]`)).toContain('https://example.org/batch-8.log');
    await page.waitForSelector(`[data-testid="breaches"] tr[data-breach="${made.operatorBreach.id}"]`);
    await d.shot(page, 'trust-subject');
    // The proof's execution opens in the record view.
    await page.click(`a[data-execution="${made.exec.id}"]`);
    await page.waitForSelector('ul.conditions');
    expect(await page.textContent('dl.fields')).toContain('dash-agent');
    await page.close();
  });

  test('an event is appealed and the appeal upheld from the page, and the score no longer counts it', async () => {
    const page = await open(person, '#/trust/subjects/dash-agent');
    const card = `article[data-event="${made.failed.id}"]`;
    await page.waitForSelector(card);
    // The explanation's row leads to the event's appeal form.
    await page.click(`tr[data-contribution="${made.failed.id}"] button`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`appeal-${made.failed.id}`);
    await page.fill(`#appeal-${made.failed.id}`, 'The deadline moved; the operator agreed in writing');
    await page.click(`${card} button:has-text("Appeal")`);
    await page.waitForSelector(`${card} li[data-appeal] [data-state="pending"]`);
    const decide = `${card} li[data-appeal] input`;
    await page.fill(decide, 'The written agreement is on file');
    await page.click(`${card} button:has-text("Uphold")`);
    await page.waitForSelector(`${card} li[data-appeal] [data-state="upheld"]`);
    await expect.poll(() => page.textContent('[data-testid="score"] .score')).toBe('47');
    await page.waitForSelector(`tr[data-excluded="${made.failed.id}"]`);
    await page.close();
  });

  test('disputes are listed with their state, one is arbitrated and decided from the page, and one is opened from it', async () => {
    const page = await open(person, '#/trust/disputes');
    await page.waitForSelector(`[data-testid="disputes"] tr[data-dispute="${made.pending.id}"]`);
    expect(await page.textContent(`tr[data-dispute="${made.escalated.id}"]`)).toContain('(irreversible)');
    await page.click(`tr[data-dispute="${made.pending.id}"] a`);
    await page.waitForSelector('[data-testid="dispute"][data-state="pending"]');
    expect(await page.textContent('[data-testid="dispute"]')).toContain('reviewer-3');
    // Two gpt-4 voices for refund: the second counts a quarter, so no position reaches two thirds.
    await page.click('button:has-text("Arbitrate the stored opinions")');
    await page.waitForSelector('[data-testid="dispute"][data-state="escalated"] [data-testid="arbitration"]');
    expect(await page.textContent('[data-testid="arbitration"]')).toContain('58.1%');
    expect(await page.textContent('[data-testid="arbitration"]')).toContain('0.75');
    await d.shot(page, 'trust-disputes');
    await page.fill('#dispute-outcome', 'refund');
    await page.fill('#dispute-reason', 'the customer was charged twice');
    await page.click('button:has-text("Record the decision")');
    await page.waitForSelector('[data-testid="dispute"][data-state="decided"]');
    expect(await page.textContent('[data-testid="decision"]')).toContain('the customer was charged twice');
    // A dispute opened from the form, with opinions typed one a line, opens at its own route.
    await page.click('nav.trust-nav a:has-text("Disputes")');
    await page.fill('#dispute-title', 'Order 982');
    await page.fill('#dispute-question', 'Replace the parcel?');
    await page.fill('#dispute-opinions', 'reviewer-4, claude, replace\nreviewer-5, , refund');
    await page.click('button:has-text("Open the dispute")');
    await page.waitForSelector('[data-testid="dispute"][data-state="pending"] h2:has-text("Order 982")');
    expect(page.url()).toMatch(/#\/trust\/disputes\/dsp_[0-9a-f]+$/);
    expect(await page.textContent('[data-testid="dispute"]')).toContain('unknown (counted as independent)');
    await page.close();
  });

  test('a contract shows its health by fault, its terms and its breaches', async () => {
    const page = await open(person, '#/trust/contracts');
    await page.waitForSelector(`[data-testid="contracts"] tr[data-contract="${made.contract.id}"]`);
    await page.click(`tr[data-contract="${made.contract.id}"] a:has-text("Batch delivery")`);
    await page.waitForSelector('[data-testid="health"]');
    expect(await page.textContent('[data-testid="health"]')).toContain('1 failure(s) by the agent dash-agent, 1 by the operator dash-ops');
    await page.waitForSelector(`[data-testid="contract-breaches"] tr[data-breach="${made.agentBreach.id}"]`);
    expect(await page.textContent('[data-testid="contract"]')).toContain('The operator supplies clean input files');
    await d.shot(page, 'trust-contracts');
    // The operator is a subject with evidence but no score: scores are for agents only.
    await page.click('[data-testid="contract"] a:has-text("dash-ops")');
    await page.waitForSelector('[data-testid="no-score"]');
    expect(await page.textContent('[data-testid="no-score"]')).toContain('organisation');
    await page.waitForSelector(`[data-testid="breaches"] tr[data-breach="${made.operatorBreach.id}"]`);
    await page.close();
  });

  test('a chain shows its calls as a tree with the cycle and the disagreement flagged, and its execution linked', async () => {
    const page = await open(person, '#/trust/chains');
    await page.waitForSelector('[data-testid="chains"] tr[data-chain="order-981"]');
    await page.click('tr[data-chain="order-981"] a');
    await page.waitForSelector('[data-testid="chain"]');
    // The call made from the root is nested in the root's item.
    await page.waitForSelector(`li[data-interaction="${made.root.id}"] li[data-interaction="${made.child.id}"]`);
    expect(await page.textContent(`li[data-interaction="${made.child.id}"] [data-testid="flag"]`)).toContain('cycle');
    expect(await page.textContent(`li[data-interaction="${made.root.id}"] > [data-testid="flag"]`)).toContain('disagreement');
    expect(await page.getAttribute(`li[data-interaction="${made.root.id}"] a[data-execution]`, 'href')).toBe(`#/records/${made.exec.id}`);
    expect(await page.locator(`li[data-interaction="${made.root.id}"] li[data-observation]`).count()).toBe(2);
    await d.shot(page, 'trust-chains');
    await page.close();
  });

  test("an event recorded through the API appears on its subject's page without a reload or a click", async () => {
    const page = await open(person, '#/trust/subjects/live-agent');
    await page.waitForSelector('[data-testid="connection"]:has-text("open")');
    await page.waitForSelector('h1:has-text("Subject live-agent")');
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    const event = await post('trust', '/events', {
      subjectId: 'live-agent',
      kind: 'task-succeeded',
      summary: 'Arrived live',
      proof: { executionId: made.exec.id },
    });
    await page.waitForSelector(`article[data-event="${event.id}"]`, { timeout: machineTimeout(5000) });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.close();
  });

  test('at a phone width nothing scrolls sideways on the subject and chain views', async () => {
    for (const hash of ['#/trust', '#/trust/subjects/dash-agent', '#/trust/chains/order-981', `#/trust/contracts/${made.contract.id}`]) {
      const page = await open(person, hash, 390);
      await page.waitForSelector('.trust h2');
      await page.waitForLoadState('networkidle');
      expect(await scrollsSideways(page), hash).toBe(false);
      await page.close();
    }
  });

  test('a token without trust:read sees "not permitted" on every trust view', async () => {
    const narrow = (await d.t.mint(['execution:read'], { sub: 'no-trust' })).token;
    for (const [hash, what] of [
      ['#/trust', 'trust scores'],
      ['#/trust/subjects/dash-agent', 'the score'],
      ['#/trust/disputes', 'disputes'],
      ['#/trust/contracts', 'contracts'],
      ['#/trust/chains', 'interaction chains'],
    ] as const) {
      const page = await open(narrow, hash);
      await expect.poll(() => page.textContent('main'), { timeout: machineTimeout(5000) }).toContain(`Not permitted: this token cannot read ${what}`);
      await page.close();
    }
  });

  // Last: the trust listener does not come back in this file.
  test('with the trust listener stopped, its figures are UNKNOWN with the reason, not empty tables', async () => {
    await d.t.suite.edges.find((e) => e.service === 'trust')!.stop();
    const page = await open(person, '#/trust');
    await page.waitForSelector('.trust .unknown');
    expect(await page.locator('.trust .unknown').count()).toBe(3);
    expect(await page.getAttribute('.trust .unknown', 'title')).toMatch(/SERVICE_UNAVAILABLE|unreach|could not/i);
    expect(await page.locator('[data-testid="scores"]').count()).toBe(0);
    await page.close();
  });
});
