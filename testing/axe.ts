import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core, as the dashboard's browser tests run it: WCAG 2.0 and 2.1 A and AA, and its best practices. */
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface Violation {
  route: string;
  id: string;
  impact: string;
  targets: string[];
  help: string;
}

/** axe-core's violations on the page as it is now, each with the elements it names. */
export async function axeViolations(page: Page, route: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const found = await page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: { run(c: Document, o: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, AXE_TAGS);
  return found.map((v) => ({ route, ...v }));
}

export const describeViolations = (all: Violation[]) => all.map((v) => `${v.route}: ${v.id} (${v.impact}) ${v.help}: ${v.targets.join(', ')}`).join('\n');
