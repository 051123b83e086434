import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Every metric the Prometheus rules and the Grafana dashboard name is one a running suite serves
 * (issue 35 item 10): read from the `# TYPE` lines of a live scrape of every listener, so that a
 * metric registered but not yet incremented counts, and a renamed or removed one does not. A name
 * with a colon is a recording rule: the rules must record it.
 */
const repo = new URL('../..', import.meta.url);
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** Prometheus's own series, not the suite's. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'ALERTS']);
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
  'Inf',
  'NaN',
]);

/** The metric names an expression reads: label matchers, ranges, strings, groupings and function names left out. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?![a-zA-Z0-9_:]|\s*\()/g)]
    .map((m) => m[0])
    .filter((n) => !PROMQL_WORDS.has(n) && !/^\d/.test(n) && !/^[0-9.e+-]+$/.test(n));
}

/** Each metric family a scrape declares, with the series names it makes (histograms: _bucket, _sum, _count). */
function servedNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    out.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.add(`${name}${s}`);
    if (type === 'summary') for (const s of ['_sum', '_count']) out.add(`${name}${s}`);
  }
  return out;
}

function ruleExpressions(): { recorded: Set<string>; exprs: Array<{ where: string; expr: string }> } {
  const rules = parse(readFileSync(new URL('observability/prometheus/rules.yml', repo), 'utf8')) as {
    groups: Array<{ name: string; rules: Array<{ record?: string; alert?: string; expr: string }> }>;
  };
  const all = rules.groups.flatMap((g) => g.rules);
  return {
    recorded: new Set(all.flatMap((r) => (r.record ? [r.record] : []))),
    exprs: all.map((r) => ({ where: `rules.yml ${r.record ?? r.alert}`, expr: String(r.expr) })),
  };
}

function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dashboard = JSON.parse(readFileSync(new URL('observability/grafana/suite-dashboard.json', repo), 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => ({ where: `dashboard "${p.title}"`, expr: target.expr })));
}

describe('the metric names of the rules and the dashboard', () => {
  it('reads names out of PromQL: not labels, functions, groupings or strings', () => {
    expect(metricNames('sum by (service) (rate(http_requests_total{status=~"5.."}[5m])) / service:http_requests:rate5m')).toEqual([
      'http_requests_total',
      'service:http_requests:rate5m',
    ]);
    expect(metricNames('histogram_quantile(0.99, sum by (chain, le) (rate(x_bucket[5m]))) > 0.5 and on(chain) y == 1')).toEqual(['x_bucket', 'y']);
  });

  it('are all served by a running suite (or recorded by the rules), every listener scraped', async () => {
    const served = new Set<string>();
    for (const edge of t.suite.edges) {
      const res = await fetch(t.url(edge.service, '/metrics'));
      expect(res.status).toBe(200);
      for (const n of servedNames(await res.text())) served.add(n);
    }
    expect(served.size).toBeGreaterThan(20);
    const { recorded, exprs } = ruleExpressions();
    const all = [...exprs, ...dashboardExpressions()];
    expect(all.length).toBeGreaterThan(20);
    const unknown: string[] = [];
    for (const { where, expr } of all) {
      const names = metricNames(expr);
      if (names.length === 0) unknown.push(`${where}: no metric in ${expr}`);
      for (const n of names) {
        const known = n.includes(':') ? recorded.has(n) : served.has(n) || PROMETHEUS_SERIES.has(n);
        if (!known) unknown.push(`${where}: ${n}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
