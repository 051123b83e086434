import { Counter, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from './process-metrics.ts';

export type HttpRequestLabels = 'service' | 'route' | 'method' | 'status';
export type HttpDurationLabels = 'service' | 'route' | 'method';

/**
 * One Prometheus registry with the HTTP metrics every edge reports. In embedded mode the six
 * listeners share one registry (the `service` label tells them apart), so the metrics are created
 * here once instead of by each app: prom-client refuses a second metric of the same name.
 */
export interface MetricsRegistry {
  readonly registry: Registry;
  readonly httpRequests: Counter<HttpRequestLabels>;
  readonly httpDuration: Histogram<HttpDurationLabels>;
}

/**
 * Buckets in seconds, finer at the low end than prom-client's default: a protected GET answers in
 * well under a millisecond, a chain append in a few.
 */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  // Process metrics (CPU, memory, event-loop lag, GC) once per registry: collecting twice into one
  // registry throws on the duplicate names.
  collectProcessMetrics(registry);
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames: ['service', 'route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by route pattern',
    labelNames: ['service', 'route', 'method'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return Object.freeze({ registry, httpRequests, httpDuration });
}
