import { hostname } from 'node:os';
import { TraceFlags, trace, type Attributes, type Context, type Link, type SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { noPropagation, type TracePropagation } from '../bus/index.ts';
import type { TracingSettings } from '../config/index.ts';
import { busPropagation } from './bus-tracing.ts';
import { httpTracing, type EdgeTracing, type HttpTracing } from './http-tracing.ts';
import { recordWorkSpans, SPAN_ROLE } from './work-spans.ts';

export interface TracingOptions {
  /** The `OTEL_*` settings, validated by config (`config.tracing`). */
  settings: TracingSettings;
  /**
   * Where spans go instead of the OTLP exporter, and tracing records even without an endpoint:
   * for tests (a `SimpleSpanProcessor` over an `InMemorySpanExporter`). The caller owns them:
   * `shutdown()` flushes them but does not shut them down.
   */
  spanProcessors?: readonly SpanProcessor[];
}

export interface Tracing {
  /**
   * Whether spans are recorded (an exporter or test processors). When not, the process does no
   * tracing work per request or per message at all: `propagation` is `noPropagation`, `http` is
   * undefined, the work-span helpers run their work as it is (docs/OBSERVABILITY.md, "Cost").
   */
  readonly recording: boolean;
  /** For `createBus`: client/server and producer/consumer spans linked by `traceparent`; `noPropagation` unless recording. */
  readonly propagation: TracePropagation;
  /** For `createEdgeApp`'s `tracing` option; undefined unless recording. */
  readonly http: EdgeTracing | undefined;
  /** Flushes what is not exported yet, then stops recording (once the last user stopped). Idempotent. */
  shutdown(): Promise<void>;
}

const UNTRACED_QUERY: SamplingResult = Object.freeze({ decision: SamplingDecision.NOT_RECORD });
const NOT_RECORDED: SamplingResult = UNTRACED_QUERY;
const RECORDED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });

/**
 * Forwards to the sampler of the current start; records nothing in between. Without an exporter
 * the current sampler is AlwaysOff. The suite's own code then starts no span at all (it is handed
 * no propagation, no edge hooks, and work-spans.ts skips its spans); a span a library would still
 * start is a non-recording one (sdk-trace Tracer.startSpan), kept by nothing.
 */
class SwitchSampler implements Sampler {
  current: Sampler = new AlwaysOffSampler();
  /** For the roots of background loops (work-spans.ts); off unless SUITE_TRACE_BACKGROUND_RATIO says. */
  background: Sampler = new AlwaysOffSampler();
  recording = false;
  shouldSample(ctx: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    // Database work outside any trace (the revocation heartbeat's query every second, lease
    // renewals) would start a trace of its own each time: only queries within a trace are kept.
    if (name.startsWith('slonik.') && trace.getSpanContext(ctx) === undefined) return UNTRACED_QUERY;
    const role = attributes[SPAN_ROLE];
    if (role !== undefined && this.recording) {
      // A batch is kept when a request it serves was: its links then lead somewhere.
      if (role === 'batch') return links.some((l) => (l.context.traceFlags & TraceFlags.SAMPLED) !== 0) ? RECORDED : NOT_RECORDED;
      if (role === 'background') return this.background.shouldSample(ctx, traceId, name, kind, attributes, links);
    }
    return this.current.shouldSample(ctx, traceId, name, kind, attributes, links);
  }
  toString(): string {
    return `Switch{${this.current.toString()}}`;
  }
}

/** Forwards spans to the processors of the current start; the provider itself is never shut down. */
class SwitchProcessor implements SpanProcessor {
  current: readonly SpanProcessor[] = [];
  onStart(span: Span, parent: Context): void {
    for (const p of this.current) p.onStart(span, parent);
  }
  onEnd(span: ReadableSpan): void {
    for (const p of this.current) p.onEnd(span);
  }
  async forceFlush(): Promise<void> {
    await Promise.all(this.current.map((p) => p.forceFlush()));
  }
  async shutdown(): Promise<void> {}
}

/**
 * The provider registered with the OpenTelemetry API, once per process and for good: libraries
 * take their tracer from the API when they load and keep it (slonik's module-level tracers cache
 * the first provider's tracer), so a provider registered later would never see their spans. What
 * a start and a shutdown change is where spans go and whether they are recorded.
 */
interface Registration {
  readonly serviceName: string;
  /** True while the current start records (it has processors). */
  recording: boolean;
  readonly sampler: SwitchSampler;
  readonly processor: SwitchProcessor;
  /** Outbound HTTP client spans: subscribed to undici's channels only while recording. */
  readonly outbound: UndiciInstrumentation;
  readonly propagation: TracePropagation;
  readonly http: HttpTracing;
}

/** The current start: shared by every `startTracing` of the process until the last shutdown. */
interface Active {
  readonly key: string;
  readonly given: readonly SpanProcessor[] | undefined;
  readonly owned: readonly SpanProcessor[];
  users: number;
}

let registration: Registration | undefined;
let active: Active | undefined;

function register(serviceName: string): Registration {
  const sampler = new SwitchSampler();
  const processor = new SwitchProcessor();
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: serviceName,
        // Semantic conventions `service.instance.id` (not yet in the stable export).
        'service.instance.id': `${hostname()}:${process.pid}`,
      }),
    ),
    sampler,
    spanProcessors: [processor],
  });
  // The AsyncLocalStorage context manager (the default), and W3C Trace Context only: no
  // `baggage`, which the suite neither sends nor reads.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // Client spans for outbound HTTP (scheduler tasks, benchmark targets, connector actions: all go
  // through undici, whose diagnostics channels this listens to, whatever the dispatcher). Only
  // within a trace: a call made outside any (a test's own fetch, a probe) starts none. Listening
  // only while recording: even outside a trace it would build attributes and inject an empty
  // context into every outbound call (the dashboard's proxy makes one per request).
  const outbound = new UndiciInstrumentation({ requireParentforSpans: true });
  registerInstrumentations({ tracerProvider: provider, instrumentations: [outbound] });
  outbound.disable();
  const reg: Registration = {
    serviceName,
    sampler,
    processor,
    outbound,
    recording: false,
    propagation: busPropagation(provider.getTracer('suite.bus'), () => reg.recording),
    http: httpTracing(provider),
  };
  return reg;
}

function samplerFor(s: TracingSettings): Sampler {
  switch (s.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(s.samplerRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(s.samplerRatio) });
  }
}

function exporting(s: TracingSettings): SpanProcessor[] {
  if (s.otlpTracesEndpoint === undefined) return [];
  const exporter = new OTLPTraceExporter({ url: s.otlpTracesEndpoint, headers: { ...s.otlpHeaders } });
  return [new BatchSpanProcessor(exporter, { scheduledDelayMillis: s.exportDelayMs })];
}

const DISABLED: Tracing = Object.freeze({ recording: false, propagation: noPropagation, http: undefined, shutdown: async () => {} });

/**
 * Tracing for this process: registers the tracer provider (W3C Trace Context, AsyncLocalStorage
 * context), and records and exports spans over OTLP/HTTP when an endpoint is configured (or a test
 * gave processors). Idempotent: a second start while one is running shares it, provided it asks
 * for the same thing; a start after the last shutdown begins afresh on the same provider.
 */
export function startTracing(options: TracingOptions): Tracing {
  const { settings, spanProcessors: given } = options;
  if (settings.disabled) return DISABLED;
  registration ??= register(settings.serviceName);
  const reg = registration;
  if (reg.serviceName !== settings.serviceName) {
    throw new Error(`tracing: this process is registered as "${reg.serviceName}"; one service name per process`);
  }
  const key = JSON.stringify(settings);
  if (active !== undefined) {
    if (active.key !== key || active.given !== given) {
      throw new Error('tracing: already started in this process with other settings or span processors');
    }
    active.users++;
    return handle(reg, active);
  }
  const owned = given === undefined ? exporting(settings) : [];
  const processors = given ?? owned;
  reg.recording = processors.length > 0;
  reg.sampler.current = reg.recording ? samplerFor(settings) : new AlwaysOffSampler();
  reg.sampler.background = reg.recording && settings.backgroundRatio > 0 ? new TraceIdRatioBasedSampler(settings.backgroundRatio) : new AlwaysOffSampler();
  reg.sampler.recording = reg.recording;
  reg.processor.current = processors;
  reg.http.record(reg.recording);
  recordWorkSpans(reg.recording);
  if (reg.recording) reg.outbound.enable();
  active = { key, given, owned, users: 1 };
  return handle(reg, active);
}

/**
 * What a start hands out. Whether anything records is decided here, once: a process that records
 * nothing gets no propagation and no edge tracing, so its requests and messages pay nothing for
 * tracing, not even a check. A bus or edge built from a recording start that outlives it (tests
 * only: the runtime stops edges and the bus first) then makes spans the sampler drops.
 */
function handle(reg: Registration, mine: Active): Tracing {
  let stopped: Promise<void> | undefined;
  return {
    recording: reg.recording,
    propagation: reg.recording ? reg.propagation : noPropagation,
    http: reg.recording ? reg.http.install : undefined,
    shutdown: () => (stopped ??= stop(reg, mine)),
  };
}

async function stop(reg: Registration, mine: Active): Promise<void> {
  mine.users--;
  if (mine.users > 0 || active !== mine) return;
  // Detach first, so a start that follows at once records into its own processors; then flush.
  active = undefined;
  const processors = reg.processor.current;
  reg.processor.current = [];
  reg.recording = false;
  reg.sampler.current = new AlwaysOffSampler();
  reg.sampler.background = new AlwaysOffSampler();
  reg.sampler.recording = false;
  reg.http.record(false);
  recordWorkSpans(false);
  reg.outbound.disable();
  await Promise.all(processors.map((p) => p.forceFlush()));
  await Promise.all(mine.owned.map((p) => p.shutdown()));
}
