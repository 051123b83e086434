import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { startDashboardBrowser, type DashboardBrowser } from '../testing/dashboard-browser.ts';
import { axeViolations, describeViolations } from '../testing/axe.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * A record's receipt verified in the browser (dashboard/src/receipt.ts, WebCrypto, public keys
 * only), in a real browser against a real suite: a good receipt is shown verified; a receipt altered
 * on its way (the record, the proof, the checkpoint) is shown NOT verified with its reason; the
 * record page stays free of axe violations with the receipt on it.
 */
let d: DashboardBrowser;
let reader: string;

async function record(subject: string): Promise<{ id: string; seq: number }> {
  const res = await fetch(d.t.url('token', '/executions'), {
    method: 'POST',
    headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject, module: 'dashboard-test', action: 'receipt', input: { n: subject }, outcome: 'success' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; seq: number };
}

/**
 * Waits until the suite has a receipt for the record (a checkpoint covers it): the page retries a
 * 503 for five seconds only, which a loaded machine's log can outlast; the page's own wait is then
 * for the browser alone.
 */
async function receiptServed(id: string): Promise<void> {
  const deadline = Date.now() + machineTimeout(10_000);
  for (;;) {
    const res = await fetch(d.t.url('token', `/executions/${id}/receipt`), { headers: { authorization: `Bearer ${reader}` } });
    if (res.status === 200) return;
    if (res.status !== 503 || Date.now() > deadline) throw new Error(`no receipt for ${id}: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The page's verdict once it shows one (verified, failed or unavailable), so a wrong one is named at once. */
async function verdictOf(page: Page): Promise<{ kind: string | null; text: string | null }> {
  const verdict = page.locator('[data-receipt]');
  await verdict.waitFor({ timeout: machineTimeout(10_000) });
  return { kind: await verdict.getAttribute('data-receipt'), text: await verdict.textContent() };
}

beforeAll(async () => {
  d = await startDashboardBrowser();
  reader = (await d.t.mint(['execution:read', 'execution:record'], { sub: 'receipt-person' })).token;
}, machineTimeout(60_000));

afterAll(async () => {
  await d?.stop();
});

describe("a record's receipt in the dashboard", () => {
  test(
    'is verified in the browser: leaf seq - 1 under a checkpoint the log signed, with no axe violation',
    async () => {
      for (let i = 0; i < 5; i += 1) await record(`filler-${i}`);
      const made = await record('receipt-subject');
      await receiptServed(made.id);
      const page = await d.open(reader, `#/records/${made.id}`);
      const verdict = await verdictOf(page);
      expect(verdict.kind, verdict.text ?? '').toBe('verified');
      expect(verdict.text).toMatch(new RegExp(`^Verified in this browser: leaf ${made.seq - 1} of the log \\S+ at size \\d+, checkpoint signed by the log`));
      await page.waitForSelector('ul.conditions');
      const violations = await axeViolations(page, '#/records/<id> with its receipt');
      expect(violations, describeViolations(violations)).toEqual([]);
      await page.close();
    },
    machineTimeout(40_000),
  );

  test(
    'altered on its way, it is shown NOT verified with the reason',
    async () => {
      // Not the first record: its inclusion proof has a hash to alter.
      const made = await record('tampered-subject');
      expect(made.seq).toBeGreaterThan(1);
      await receiptServed(made.id);
      const cases: Array<[string, (r: Record<string, unknown>) => void, RegExp]> = [
        [
          'record',
          (r) => {
            (r.record as Record<string, unknown>).action = 'something-else';
          },
          /NOT verified: hash mismatch/,
        ],
        [
          'proof',
          (r) => {
            r.treeSize = (r.treeSize as number) + 1;
          },
          /NOT verified: the checkpoint is of size \d+, the proof of \d+/,
        ],
        [
          'checkpoint',
          (r) => {
            r.checkpoint = (r.checkpoint as string).replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 1}\n`);
          },
          /NOT verified: the log's checkpoint signature does not verify/,
        ],
        [
          'inclusion',
          (r) => {
            r.proof = [Buffer.alloc(32, 9).toString('base64'), ...(r.proof as string[]).slice(1)];
          },
          /NOT verified: the inclusion proof does not lead to the checkpoint's root/,
        ],
      ];
      for (const [what, alter, reason] of cases) {
        const page = await d.browser.newPage();
        await page.route(`**/executions/${made.id}/receipt`, async (route) => {
          const res = await route.fetch();
          if (res.status() !== 200) return route.fulfill({ response: res });
          const body = (await res.json()) as Record<string, unknown>;
          alter(body);
          return route.fulfill({ response: res, json: body });
        });
        await page.goto(d.t.url('dashboard', `/#/records/${made.id}`));
        await page.fill('#token', reader);
        await page.press('#token', 'Enter');
        const verdict = await verdictOf(page);
        expect(verdict.kind, `${what}: ${verdict.text}`).toBe('failed');
        expect(verdict.text, what).toMatch(reason);
        await page.close();
      }
    },
    machineTimeout(60_000),
  );
});
