import { Counter, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from './process-metrics.ts';
import { createPromiseMetrics, type PromiseMetrics } from './promise-metrics.ts';

export type HttpRequestLabels = 'service' | 'route' | 'method' | 'status';
export type HttpDurationLabels = 'service' | 'route' | 'method';

/** The series of one service: its listener's HTTP series, and its actors' own metrics. */
export interface ServiceMetrics {
  /** Where the service's actors register their metrics (scheduler_*, bench_*, mcp_*). */
  readonly registry: Registry;
  readonly requests: Counter<HttpRequestLabels>;
  readonly duration: Histogram<HttpDurationLabels>;
}

/**
 * The metrics of one process, split so that scraping every listener of the process counts each
 * series once (docs/OBSERVABILITY.md, "Scraping"): each listener serves its own service's series
 * (its HTTP series and its actors' metrics); the process-wide series (process and Node.js metrics,
 * the audit trail, the chains, the revocation view, decisions, verification) live in `registry`
 * and are served by one listener only, the first set up in the process, which also serves the
 * series of services whose listener this process does not run.
 */
export interface MetricsRegistry {
  /** The process-wide series. */
  readonly registry: Registry;
  readonly promises: PromiseMetrics;
  /** The series of `service` (a listener name: token, scheduler, bench, ...), made on first use. */
  service(service: string): ServiceMetrics;
  /**
   * What `GET /metrics` of `service`'s listener answers. Called once per listener, when its routes
   * are installed: the first call of a process (listeners start in the order token, scheduler,
   * bench, connector, trust, dashboard) makes that listener the one with the process-wide series.
   */
  exposition(service: string): () => Promise<string>;
  readonly contentType: string;
}

/**
 * Buckets in seconds, finer at the low end than prom-client's default: a protected GET answers in
 * well under a millisecond, a chain append in a few.
 */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function serviceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames: ['service', 'route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by route pattern',
    labelNames: ['service', 'route', 'method'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return { registry, requests, duration };
}

export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  // Process metrics (CPU, memory, event-loop lag, GC) once per registry: collecting twice into one
  // registry throws on the duplicate names.
  collectProcessMetrics(registry);
  const promises = createPromiseMetrics(registry);
  const byService = new Map<string, ServiceMetrics>();
  const listeners = new Set<string>();
  let processListener: string | undefined;
  const service = (name: string) => {
    let m = byService.get(name);
    if (m === undefined) {
      m = serviceMetrics();
      byService.set(name, m);
    }
    return m;
  };
  const unserved = () => [...byService].filter(([name]) => !listeners.has(name)).map(([, m]) => m.registry);
  return Object.freeze({
    registry,
    promises,
    service,
    contentType: registry.contentType,
    exposition(name: string) {
      listeners.add(name);
      processListener ??= name;
      const own = service(name).registry;
      if (processListener !== name) return () => own.metrics();
      return async () => {
        const parts = [own, registry, ...unserved()];
        return (await Promise.all(parts.map((r) => r.metrics()))).join('');
      };
    },
  });
}
