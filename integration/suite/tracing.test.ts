import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjects } from '../../bus/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { NO_TRACING_WORK, watchTracingWork } from '../../testing/tracing-work.ts';

/** The real suite in this process (memory bus, in-memory PGlite), traced end to end. */

/** One suite per describe block: a process has one tracer provider, so they run one after another. */
function suiteFor(env: Record<string, string>, recordInto?: InMemorySpanExporter) {
  const holder: { t?: TestSuite } = {};
  beforeAll(async () => {
    holder.t = await startTestSuite(env, [], recordInto ? { spanProcessors: [new SimpleSpanProcessor(recordInto)] } : {});
  });
  afterAll(async () => {
    await holder.t?.stop();
  });
  return () => {
    if (!holder.t) throw new Error('the suite did not start');
    return holder.t;
  };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function issue(t: TestSuite, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.url('token', '/auth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey, ...headers },
    body: JSON.stringify({ sub: 'traced-agent', scope: ['audit:read'] }),
  });
}

/** An in-memory exporter that can be waited on: spans end as replies go out, around the response. */
class WatchedExporter extends InMemorySpanExporter {
  readonly #waiters = new Set<() => void>();
  override export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    super.export(spans, done);
    for (const wake of this.#waiters) wake();
  }
  /** The spans of one trace, once `until` holds for them (or whatever arrived within 5 s). */
  spansOf(traceId: string, until: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
    const current = () => this.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(), 5000);
      const finish = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(current());
      };
      const check = () => {
        if (until(current())) finish();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

const exporter = new WatchedExporter();

function isDescendant(span: ReadableSpan, ancestor: ReadableSpan, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let parent = span.parentSpanContext?.spanId; parent !== undefined; parent = byId.get(parent)?.parentSpanContext?.spanId) {
    if (parent === ancestor.spanContext().spanId) return true;
  }
  return false;
}

describe('a suite that records spans', () => {
  const suite = suiteFor({}, exporter);

  it("puts the HTTP request, the bus request, the actor and its database queries in the caller's trace", async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await issue(suite(), { traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(res.status).toBe(200);
    const echoed = res.headers.get('traceparent');
    expect(echoed).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const isDb = (s: ReadableSpan) => s.name.startsWith('slonik.');
    const spans = await exporter.spansOf(traceId, (all) => all.some((s) => s.kind === SpanKind.SERVER && s.name === 'suite.tokens.issue') && all.some(isDb));
    const http = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/auth/token');
    const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'suite.tokens.issue');
    const actor = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'suite.tokens.issue');
    if (!http || !client || !actor) throw new Error(`spans missing from the trace: ${spans.map((s) => s.name).join(', ')}`);
    expect(http.name).toBe('POST /auth/token');
    expect(http.parentSpanContext?.spanId).toBe(callerSpan);
    expect(http.attributes['http.response.status_code']).toBe(200);
    // The response names the server span, so the caller can find it.
    expect(echoed?.split('-')[2]).toBe(http.spanContext().spanId);
    expect(isDescendant(client, http, spans)).toBe(true);
    expect(actor.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(spans.filter((s) => isDb(s) && isDescendant(s, actor, spans)).length).toBeGreaterThan(0);
  });

  it('starts a trace for a request that brings none, and answers with its id', async () => {
    const res = await issue(suite());
    expect(res.status).toBe(200);
    const traceId = res.headers.get('traceparent')?.split('-')[1] ?? '';
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await exporter.spansOf(traceId, (all) => all.some((s) => s.name === 'suite.tokens.issue'));
    const http = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /auth/token');
    expect(http).toBeDefined();
    expect(http?.parentSpanContext).toBeUndefined();
  });

  it('leaves probes and scrapes untraced', async () => {
    const res = await fetch(suite().url('token', '/health'));
    expect(res.status).toBe(200);
    expect(res.headers.get('traceparent')).toBeNull();
  });
});

describe('a suite without an exporter', () => {
  const suite = suiteFor({});

  it('does no tracing work for a validate or an append: no span, no context, no trace header anywhere', async () => {
    exporter.reset();
    const t = suite();
    const { token } = await t.mint(['auth:token:validate', 'audit:read', 'execution:record']);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const appended: Array<string | undefined> = [];
    const seen = new Promise<void>((resolve) => {
      t.suite.bus.subscribe(subjects.executionsAppended, ({ headers: h }) => {
        appended.push(h.traceparent);
        resolve();
      });
    });
    await t.suite.bus.flush();
    const watch = watchTracingWork();
    try {
      // A caller with tracing of its own in front: its header is neither kept nor answered.
      const callerTrace = { traceparent: `00-${hex(16)}-${hex(8)}-01` };
      const validated = await fetch(t.url('token', '/auth/token/validate'), {
        method: 'POST',
        headers: { ...headers, ...callerTrace },
        body: JSON.stringify({ token, requiredScope: 'audit:read' }),
      });
      expect(validated.status).toBe(200);
      expect(validated.headers.get('traceparent')).toBeNull();
      const append = await fetch(t.url('token', '/executions'), {
        method: 'POST',
        headers: { ...headers, ...callerTrace },
        body: JSON.stringify({ subject: 'test-agent', module: 'tracing-test', action: 'append', input: { n: 1 }, outcome: 'success' }),
      });
      expect(append.status).toBe(201);
      expect(append.headers.get('traceparent')).toBeNull();
      await seen;
      // Counted over the whole process while both were served: the edge, the bus, the actors, the
      // audit sink and the chain writer's commits, and whatever background loop turned meanwhile.
      expect(watch.counts()).toEqual(NO_TRACING_WORK);
    } finally {
      watch.restore();
    }
    expect(appended.length).toBeGreaterThan(0);
    expect(appended.every((traceparent) => traceparent === undefined)).toBe(true);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('a suite with an OTLP endpoint', () => {
  const received: Array<{ url: string | undefined; auth: string | undefined; body: string }> = [];
  const collector = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url, auth: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  beforeAll(() => new Promise<void>((r) => collector.listen(0, '127.0.0.1', r)));
  afterAll(() => new Promise<void>((r) => collector.close(() => r())));

  it('sends spans over OTLP/HTTP to the configured endpoint, flushed when the suite stops', async () => {
    const port = (collector.address() as AddressInfo).port;
    const t = await startTestSuite({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-key',
      OTEL_SERVICE_NAME: 'agent-authority-suite',
    });
    const traceId = hex(16);
    try {
      expect((await issue(t, { traceparent: `00-${traceId}-${hex(8)}-01` })).status).toBe(200);
    } finally {
      await t.stop();
    }
    // The batch processor has not sent yet (5 s schedule): what arrived was flushed by stop().
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.url === '/v1/traces' && r.auth === 'Bearer collector-key')).toBe(true);
    const all = received.map((r) => r.body).join('\n');
    expect(all).toContain(traceId);
    expect(all).toContain('suite.tokens.issue');
    expect(all).toContain('agent-authority-suite');
  });
});
