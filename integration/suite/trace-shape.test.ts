import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { startHttpTarget, type HttpTarget } from '../../testing/http-target.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../testing/otlp-receiver.ts';
import { waterfallHtml } from '../../testing/trace-waterfall.ts';
import { CHROMIUM, UPDATE_DOCS } from '../../testing/dashboard-browser.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * One request, one trace (issue 24, docs/OBSERVABILITY.md "Trace shape"): the real suite in this
 * process exports over OTLP/HTTP to a receiver on loopback. Background loops are recorded here
 * (SUITE_TRACE_BACKGROUND_RATIO=1) so that the test can see them start traces of their own.
 */

/** Most spans one POST /executions may hold: its edge, bus, actor and capability-check spans (about 10 today). */
const MAX_SPANS_PER_REQUEST = 25;

let t: TestSuite;
let otlp: OtlpReceiver;
let target: HttpTarget;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  target = await startHttpTarget(() => ({ status: 200 }));
  t = await startTestSuite({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    SUITE_TRACE_BACKGROUND_RATIO: '1',
    SCHEDULER_WORKERS: '1',
    SCHEDULER_POLL_MS: '20',
  });
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await target?.close();
  await otlp?.close();
});

const traceIdOf = (res: Response) => res.headers.get('traceparent')?.split('-')[1] ?? '';

/** Whether every span of `spans` descends from `root` through parents within `spans`. */
function allUnder(root: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans.every((s) => {
    for (let at: ReceivedSpan | undefined = s; at !== undefined; at = byId.get(at.parentSpanId)) {
      if (at === root) return true;
    }
    return false;
  });
}

async function screenshot(html: string, path: string): Promise<void> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 320 } });
    await page.setContent(html);
    await page.screenshot({ path, fullPage: true });
  } finally {
    await browser.close();
  }
}

const rootOf = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.parentSpanId === '');

describe('traces under concurrent requests', () => {
  it('gives 20 concurrent POST /executions 20 traces, each with only its own spans, and commit spans that link to them', async () => {
    const { token } = await t.mint(['execution:record']);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(t.url('token', '/executions'), {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ subject: `agent-${i}`, module: 'traces', action: 'append', input: { i }, outcome: 'success' }),
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = answers.map(traceIdOf);
    expect(new Set(ids).size).toBe(20);

    // The server span ends last in a request's trace: once all 20 and the commits linking to them
    // have arrived, each trace is complete.
    const isEdge = (s: ReceivedSpan) => s.kind === SPAN_KIND.server && s.name === 'POST /executions';
    const commits = await otlp.waitFor((spans) => {
      const done = ids.every((id) => spans.some((s) => s.traceId === id && isEdge(s)));
      const commitSpans = spans.filter((s) => s.name === 'chain.commit executions');
      const linked = new Set(commitSpans.flatMap((c) => c.links.map((l) => l.traceId)));
      return done && ids.every((id) => linked.has(id)) ? commitSpans : undefined;
    });

    for (const id of ids) {
      const spans = otlp.byTrace(id);
      expect(spans.length).toBeGreaterThan(3);
      expect(spans.length).toBeLessThanOrEqual(MAX_SPANS_PER_REQUEST);
      const roots = rootOf(spans);
      expect(roots.map((s) => s.name)).toEqual(['POST /executions']);
      expect(allUnder(roots[0] as ReceivedSpan, spans)).toBe(true);
      // Batch work and broadcasts are elsewhere: in traces of their own.
      expect(spans.filter((s) => s.name.startsWith('chain.') || s.name.startsWith('audit.') || s.name.includes('appended'))).toEqual([]);
      expect(spans.filter(isEdge)).toHaveLength(1);
    }
    // Each commit span is the root of its own trace, none of the requests'.
    for (const c of commits) {
      expect(c.parentSpanId).toBe('');
      expect(ids).not.toContain(c.traceId);
      expect(c.attributes['suite.chain.records']).toBeGreaterThan(0);
    }
    // A link points at the span that asked for the append: the actor's server span of the request.
    const linked = commits.flatMap((c) => c.links).find((l) => l.traceId === ids[0]);
    const target0 = otlp.byTrace(ids[0] as string).find((s) => s.spanId === linked?.spanId);
    expect(target0?.name).toBe('suite.executions.record');

    // The waterfall of one request's trace, with the commit that served it (docs/OBSERVABILITY.md).
    const first = otlp.byTrace(ids[0] as string);
    const servingCommits = commits.filter((c) => c.links.some((l) => l.traceId === ids[0])).flatMap((c) => otlp.byTrace(c.traceId));
    const page = waterfallHtml('POST /executions, one of 20 concurrent', first, servingCommits);
    expect(page).toContain('suite.executions.record');
    expect(page).toContain('chain.commit executions');
    if (UPDATE_DOCS) await screenshot(page, 'docs/screenshots/trace-request.png');
  });
});

describe("a scheduler task's trace", () => {
  it('ends with its attempt: the outbound call is a client span in it, and later polls start traces of their own', async () => {
    const { token } = await t.mint(['queue:write', 'queue:read']);
    const queued = await fetch(t.url('scheduler', '/queue'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'traced-task', task: { type: 'http', url: `${target.url}/traced` } }),
    });
    expect(queued.status).toBe(201);
    const enqueueTrace = traceIdOf(queued);

    const attempt = await otlp.waitFor((spans) => spans.find((s) => s.name === 'scheduler.attempt' && s.attributes['scheduler.task.id'] === 'traced-task'));
    expect(attempt.parentSpanId).toBe('');
    expect(attempt.traceId).not.toBe(enqueueTrace);
    expect(attempt.attributes['scheduler.outcome']).toBe('success');
    // Linked to the request that queued it (issue 36): the two traces join without an attribute.
    const queuedBy = attempt.links.find((l) => l.traceId === enqueueTrace);
    expect(queuedBy, 'the attempt links to the POST /queue trace').toBeDefined();
    expect(otlp.byTrace(enqueueTrace).some((s) => s.spanId === queuedBy?.spanId)).toBe(true);

    // Its spans all ended before it did (it ends last), so they have arrived with it.
    const attemptSpans = otlp.byTrace(attempt.traceId);
    expect(allUnder(attempt, attemptSpans)).toBe(true);
    const client = attemptSpans.find((s) => s.kind === SPAN_KIND.client && s.attributes['url.full'] === `${target.url}/traced`);
    expect(client).toBeDefined();
    expect(client?.attributes['http.response.status_code']).toBe(200);
    // The target saw the client span as its caller.
    expect(target.hitsOn('/traced')[0]?.headers.traceparent).toContain(`-${attempt.traceId}-${client?.spanId}-`);
    // The attempt is recorded on the execution chain within it.
    expect(attemptSpans.some((s) => s.name === 'suite.executions.record')).toBe(true);

    const sizes = () => [otlp.byTrace(enqueueTrace).length, otlp.byTrace(attempt.traceId).length];
    const before = sizes();
    const seen = otlp.spans.length;
    // Ten more polls of the idle workers (every 20 ms), each arriving as a root of its own trace.
    const polls = await otlp.waitFor((spans) => {
      const later = spans.slice(seen).filter((s) => s.name === 'scheduler.poll');
      return later.length >= 10 ? later : undefined;
    });
    expect(polls.every((p) => p.parentSpanId === '')).toBe(true);
    expect(new Set(polls.map((p) => p.traceId)).size).toBe(polls.length);
    expect(polls.some((p) => p.traceId === attempt.traceId || p.traceId === enqueueTrace)).toBe(false);
    expect(sizes()).toEqual(before);
  });
});
