import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { createMetricsRegistry } from '../../observability/index.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * `GET /metrics` of every listener in the Prometheus text format as Prometheus's own checker reads
 * it (`promtool check metrics`: parse errors and the naming lints), before and after traffic, and
 * scraped back to back: the six listeners of the embedded suite share one registry, and two
 * scrapes within the event-loop sampler's 10 ms once gave statistics of NaN.
 */

/** Tests never skip (README): without promtool the check fails, saying how to install it. */
function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error !== undefined) {
    throw new Error(`promtool could not be run (${run.error.message}): install it with \`apt-get install prometheus\` (.ci/run does)`);
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/**
 * Sample lines whose value is not a float as the text format writes one (`NaN`, `+Inf`, `-Inf` or
 * a Go-parsable number). promtool parses values case-insensitively and lets prom-client's `Nan` by.
 */
function malformedValues(text: string): string[] {
  const value = /^(?:NaN|[+-]Inf|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/;
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .filter((line) => !value.test(line.slice(line.lastIndexOf(' ') + 1)));
}

/** Metrics of a type other than counter whose name ends in `_total`: Prometheus keeps that suffix for counters. */
function nonCountersNamedTotal(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+_total) (\S+)$/gm)].filter((m) => m[2] !== 'counter').map((m) => m[1]!);
}

describe('the process metrics of a registry', () => {
  it('name no gauge *_total and write no value the text format does not allow, even when scraped back to back', async () => {
    const metrics = createMetricsRegistry();
    const scrapes = [await metrics.registry.metrics(), await metrics.registry.metrics()];
    // The sampler records from its second tick on (10 ms apart). A fixed 50 ms wait once scraped
    // before it: on a busy machine the process was held longer than that, and the sampler's first tick
    // and the wait's end came in one turn of the loop (mean 0, beside a CPU hog). So scrape until
    // the statistics have been read from samples, then once more at once.
    const meanOf = (text: string) => Number(/^nodejs_eventloop_lag_mean_seconds (\S+)$/m.exec(text)?.[1]);
    const sampled = await vi.waitFor(
      async () => {
        const text = await metrics.registry.metrics();
        if (!(meanOf(text) > 0)) throw new Error(`no delay statistics yet: mean ${meanOf(text)}`);
        return text;
      },
      { timeout: machineTimeout(5_000), interval: 20 },
    );
    scrapes.push(sampled, await metrics.registry.metrics());
    for (const text of scrapes) {
      expect(nonCountersNamedTotal(text)).toEqual([]);
      expect(malformedValues(text)).toEqual([]);
      expect(text).toMatch(/^nodejs_eventloop_lag_mean_seconds \S+$/m);
      expect(text).toMatch(/^nodejs_active_handles\{type="\w+"\} \d+$/m);
      // An empty window's minimum was the histogram's sentinel, 9223372036.854776 s.
      expect(Number(/^nodejs_eventloop_lag_min_seconds (\S+)$/m.exec(text)![1])).toBeLessThan(1);
    }
    // Once sampled, the statistics are the delays measured, and a scrape right after (no new sample
    // in between, as two listeners scraped together) keeps them rather than writing NaN.
    for (const text of scrapes.slice(2)) {
      expect(meanOf(text)).toBeGreaterThan(0);
      expect(meanOf(text)).toBeLessThan(1);
    }
  });
});

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function scrapeAll(): Promise<Array<{ service: string; text: string }>> {
  const scrapes = [];
  for (const edge of t.suite.edges) {
    const res = await fetch(t.url(edge.service, '/metrics'));
    expect(res.status).toBe(200);
    scrapes.push({ service: edge.service, text: await res.text() });
  }
  return scrapes;
}

/** Answers of every kind on every listener: 200s, refusals, validation errors, unmatched URLs. */
async function traffic(): Promise<void> {
  const token = await t.mint(['audit:read']);
  for (const edge of t.suite.edges) {
    await fetch(t.url(edge.service, '/health'));
    await fetch(t.url(edge.service, '/capabilities'), { headers: { authorization: `Bearer ${token.token}` } });
    await fetch(t.url(edge.service, '/capabilities'));
    await fetch(t.url(edge.service, '/no/such/route'));
    await fetch(t.url(edge.service, '/openapi.json'));
  }
  await fetch(t.url('token', '/audit?limit=2'), { headers: { authorization: `Bearer ${token.token}` } });
  await fetch(t.url('token', '/audit?limit=nope'), { headers: { authorization: `Bearer ${token.token}` } });
}

describe('GET /metrics on every listener', () => {
  it('passes promtool check metrics before traffic, after it, and scraped back to back', { timeout: machineTimeout(60_000) }, async () => {
    const rounds = [await scrapeAll()];
    await traffic();
    rounds.push(await scrapeAll(), await scrapeAll());
    const after = rounds[1]!.find((s) => s.service === 'token')!.text;
    // The traffic shows as labelled series and histogram buckets, so promtool checked those too
    // (each listener serves its own: docs/OBSERVABILITY.md, Scraping).
    expect(after).toMatch(/^http_requests_total\{service="token",route="\/audit",method="GET",status="400"\} 1$/m);
    expect(rounds[1]!.find((s) => s.service === 'scheduler')!.text).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.5",service="scheduler",route="unmatched",method="GET"\} 1$/m,
    );
    let checked = 0;
    for (const round of rounds) {
      for (const { service, text } of round) {
        expect(promtoolCheck(text), service).toEqual({ status: 0, output: '' });
        checked++;
      }
    }
    expect(checked).toBe(18);
  });

  it('names no gauge *_total and writes only values the text format allows, on every listener', async () => {
    await traffic();
    for (const { service, text } of await scrapeAll()) {
      expect(nonCountersNamedTotal(text), service).toEqual([]);
      expect(malformedValues(text), service).toEqual([]);
    }
  });
});
