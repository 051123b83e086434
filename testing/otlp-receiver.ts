import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OTLP/HTTP trace receiver on loopback, for tests and the trace screenshot: it accepts what
 * `@opentelemetry/exporter-trace-otlp-http` sends (`POST /v1/traces`, the JSON encoding of
 * ExportTraceServiceRequest, ids as hex strings) and keeps every span. Nothing about the suite is
 * faked: spans come from its real exporter over a real socket.
 */

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly links: ReadonlyArray<{ traceId: string; spanId: string }>;
  readonly service: string;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  byTrace(traceId: string): ReceivedSpan[];
  /** Resolves once `until` holds for the spans received so far (checked on each export). */
  waitFor<T>(until: (spans: readonly ReceivedSpan[]) => T | undefined): Promise<T>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

function attributeValue(v: OtlpValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return '';
}

function attributesOf(list: OtlpSpan['attributes']): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, attributeValue(a.value)]));
}

export function parseOtlpJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as OtlpRequest;
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          service,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415, { 'content-type': 'text/plain' }).end('this receiver takes OTLP/HTTP JSON at /v1/traces');
        return;
      }
      try {
        spans.push(...parseOtlpJson(Buffer.concat(chunks).toString()));
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not an OTLP JSON body');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    byTrace: (traceId) => spans.filter((s) => s.traceId === traceId),
    waitFor(until) {
      return new Promise((resolve) => {
        const check = () => {
          const found = until(spans);
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
