import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Scraping every listener of one process counts each series once (docs/OBSERVABILITY.md,
 * "Scraping"), and the metrics of the suite's promises are there (issue 24, part 2).
 */

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** Sample lines by series (name and labels), from the Prometheus text format. */
function series(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrapeAll(): Promise<Array<{ service: string; series: Map<string, number> }>> {
  return Promise.all(
    t.suite.edges.map(async (edge) => {
      const res = await fetch(t.url(edge.service, '/metrics'));
      expect(res.status).toBe(200);
      return { service: edge.service, series: series(await res.text()) };
    }),
  );
}

const PROMISE_METRICS = [
  'suite_audit_backlog_entries',
  'suite_audit_backlog_oldest_age_seconds',
  'suite_chain_entries_committed_total',
  'suite_chain_head_sequence',
  'suite_chain_commit_records_bucket',
  'suite_chain_commit_duration_seconds_bucket',
  'suite_chain_writer_leader',
  'suite_chain_writer_lease_age_seconds',
  'suite_revocation_view_entries',
  'suite_revocation_view_age_seconds',
  'suite_decisions_total',
  'suite_verification_runs_total',
  'suite_verification_duration_seconds_count',
];

describe('/metrics of the six listeners of one process', () => {
  it('serve no series twice, and each listener its own HTTP series', async () => {
    const { token } = await t.mint(['execution:record', 'execution:read']);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const recorded = await fetch(t.url('token', '/executions'), {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ subject: 'scraped', module: 'm', action: 'a', input: 1, outcome: 'success' }),
    });
    expect(recorded.status).toBe(201);
    expect((await fetch(t.url('token', '/executions/verify'), { method: 'POST', headers: auth, body: '{}' })).status).toBe(200);
    expect((await fetch(t.url('scheduler', '/queue'))).status).toBe(401);
    for (const edge of t.suite.edges) await fetch(t.url(edge.service, '/health'));

    const scrapes = await scrapeAll();
    expect(scrapes.map((s) => s.service).sort()).toEqual(['bench', 'connector', 'dashboard', 'scheduler', 'token', 'trust']);
    const where = new Map<string, string[]>();
    for (const s of scrapes) for (const key of s.series.keys()) where.set(key, [...(where.get(key) ?? []), s.service]);
    const twice = [...where].filter(([, on]) => on.length > 1);
    expect(twice).toEqual([]);

    for (const s of scrapes) {
      const services = new Set([...s.series.keys()].filter((k) => k.startsWith('http_')).map((k) => /service="([^"]+)"/.exec(k)?.[1]));
      expect([...services]).toEqual([s.service]);
    }
    // The process-wide series are on one listener: the first set up (token).
    const processOn = scrapes.filter((s) => [...s.series.keys()].some((k) => k.startsWith('process_cpu_user_seconds_total')));
    expect(processOn.map((s) => s.service)).toEqual(['token']);
  });

  it('include the metrics of the promises, with the values the traffic gave them', async () => {
    const all = new Map((await scrapeAll()).flatMap((s) => [...s.series]));
    const names = new Set([...all.keys()].map((k) => k.replace(/\{.*$/, '')));
    expect(PROMISE_METRICS.filter((n) => !names.has(n))).toEqual([]);
    // One process leads both chains; the head of the executions chain is past the record above.
    expect(all.get('suite_chain_writer_leader{chain="executions"}')).toBe(1);
    expect(all.get('suite_chain_writer_leader{chain="audit"}')).toBe(1);
    expect(all.get('suite_chain_head_sequence{chain="executions"}')).toBeGreaterThanOrEqual(1);
    expect(all.get('suite_chain_entries_committed_total{chain="audit"}')).toBeGreaterThan(0);
    expect(all.get('suite_verification_runs_total{result="valid"}')).toBe(1);
    // Decisions: allows (the record, the verify) and the refusal of the unauthenticated GET /queue.
    expect(all.get('suite_decisions_total{result="allow",code="none"}')).toBeGreaterThanOrEqual(2);
    expect(all.get('suite_decisions_total{result="deny",code="TOKEN_MISSING"}')).toBeGreaterThanOrEqual(1);
    expect(all.get('suite_revocation_view_age_seconds')).toBeLessThan(60);
  });
});
