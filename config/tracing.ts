/**
 * The OpenTelemetry part of the configuration: the standard `OTEL_*` variables of the OpenTelemetry
 * SDK specification ("Environment Variable Specification", and "OTLP Exporter Configuration"), read
 * here with the rest of the configuration so that nothing else reads `process.env`.
 */

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingSettings {
  /** `OTEL_SDK_DISABLED=true`: no tracer provider at all, so not even trace ids are propagated. */
  readonly disabled: boolean;
  /** `OTEL_SERVICE_NAME`: `service.name` of every span this process exports. */
  readonly serviceName: string;
  /**
   * Where spans are sent (OTLP over HTTP): `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. Undefined: nothing is exported, and nothing is
   * recorded (trace ids still flow).
   */
  readonly otlpTracesEndpoint: string | undefined;
  /** `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else `OTEL_EXPORTER_OTLP_HEADERS` (collector credentials). */
  readonly otlpHeaders: Readonly<Record<string, string>>;
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`, as in the specification). */
  readonly sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers, 0 to 1 (default 1). */
  readonly samplerRatio: number;
  /**
   * `SUITE_TRACE_BACKGROUND_RATIO`: the share of background loop turns (scheduler polls and ticks,
   * lease renewals, revocation syncs) recorded as traces of their own, 0 to 1 (default 0: none).
   */
  readonly backgroundRatio: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: milliseconds between two exports of finished spans (default 5000). */
  readonly exportDelayMs: number;
}

export const DEFAULT_SERVICE_NAME = 'agent-authority-suite';

type Read = (name: string) => string | undefined;
type Fail = (variable: string, message: string) => Error;

function endpointUrl(name: string, raw: string, fail: Fail): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(name, `must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(name, `must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}

/**
 * `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage format the specification
 * uses). Values are collector credentials: an error names the variable and the key, never a value.
 */
function parseHeaders(name: string, raw: string, fail: Fail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = entry.slice(0, at).trim();
    if (at < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) throw fail(name, 'must be key=value pairs separated by commas');
    try {
      headers[key.toLowerCase()] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      throw fail(name, `the value of "${key}" is not valid percent-encoding`);
    }
  }
  return headers;
}

function tracesEndpoint(read: Read, fail: Fail): string | undefined {
  const exporter = read('OTEL_TRACES_EXPORTER') ?? 'otlp';
  if (exporter === 'none') return undefined;
  if (exporter !== 'otlp') throw fail('OTEL_TRACES_EXPORTER', `must be otlp or none, got "${exporter}"`);
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = read(name);
    // Spans are sent as OTLP/HTTP (JSON encoding); collectors take both encodings on that port.
    if (protocol !== undefined && protocol !== 'http/json' && protocol !== 'http/protobuf') {
      throw fail(name, `must be http/json or http/protobuf (OTLP over HTTP), got "${protocol}"`);
    }
  }
  const signal = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (signal !== undefined) return endpointUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal, fail);
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base === undefined) return undefined;
  endpointUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base, fail);
  // The base endpoint gets the signal's path appended (spec: "OTLP/HTTP ... v1/traces").
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

export function loadTracingSettings(read: Read, fail: Fail): TracingSettings {
  const disabledRaw = read('OTEL_SDK_DISABLED');
  if (disabledRaw !== undefined && !['true', 'false'].includes(disabledRaw.toLowerCase())) {
    throw fail('OTEL_SDK_DISABLED', `must be true or false, got "${disabledRaw}"`);
  }
  const sampler = read('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  if (!(SAMPLERS as readonly string[]).includes(sampler)) throw fail('OTEL_TRACES_SAMPLER', `must be one of ${SAMPLERS.join(', ')}`);
  const ratioRaw = read('OTEL_TRACES_SAMPLER_ARG');
  const samplerRatio = ratioRaw === undefined ? 1 : Number(ratioRaw);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(ratioRaw ?? '1') || samplerRatio < 0 || samplerRatio > 1) {
    throw fail('OTEL_TRACES_SAMPLER_ARG', `must be a ratio between 0 and 1, got "${ratioRaw}"`);
  }
  const backgroundRaw = read('SUITE_TRACE_BACKGROUND_RATIO');
  const backgroundRatio = backgroundRaw === undefined ? 0 : Number(backgroundRaw);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(backgroundRaw ?? '0') || backgroundRatio < 0 || backgroundRatio > 1) {
    throw fail('SUITE_TRACE_BACKGROUND_RATIO', `must be a ratio between 0 and 1, got "${backgroundRaw}"`);
  }
  const delayRaw = read('OTEL_BSP_SCHEDULE_DELAY');
  const exportDelayMs = delayRaw === undefined ? 5000 : Number(delayRaw);
  if (!/^\d{1,7}$/.test(delayRaw ?? '5000') || exportDelayMs < 1) {
    throw fail('OTEL_BSP_SCHEDULE_DELAY', `must be a whole number of milliseconds from 1 to 9999999, got "${delayRaw}"`);
  }
  const headersVariable = read('OTEL_EXPORTER_OTLP_TRACES_HEADERS') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS';
  const headersRaw = read(headersVariable);
  return {
    disabled: disabledRaw?.toLowerCase() === 'true',
    serviceName: read('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
    otlpTracesEndpoint: tracesEndpoint(read, fail),
    otlpHeaders: headersRaw === undefined ? {} : parseHeaders(headersVariable, headersRaw, fail),
    sampler: sampler as SamplerName,
    samplerRatio,
    backgroundRatio,
    exportDelayMs,
  };
}
