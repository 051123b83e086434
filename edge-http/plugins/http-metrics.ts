import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import type { HttpDurationLabels, HttpRequestLabels, MetricsRegistry } from '../../observability/index.ts';

/** Route label for answers no route matched: one series, whatever URLs scanners try. */
export const UNMATCHED_ROUTE = 'unmatched';

export type ResponseHook = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/** The labelled series of one route and method; children are looked up once, not per request. */
class MethodSeries {
  readonly #requests: Counter<HttpRequestLabels>;
  readonly #labels: { service: string; route: string; method: string };
  readonly #duration: Histogram.Internal<HttpDurationLabels>;
  readonly #byStatus = new Map<number, Counter.Internal>();

  constructor(metrics: MetricsRegistry, service: string, route: string, method: string) {
    const own = metrics.service(service);
    this.#requests = own.requests;
    this.#labels = { service, route, method };
    this.#duration = own.duration.labels(this.#labels);
  }

  observe(status: number, seconds: number): void {
    let counter = this.#byStatus.get(status);
    if (counter === undefined) {
      counter = this.#requests.labels({ ...this.#labels, status: String(status) });
      this.#byStatus.set(status, counter);
    }
    counter.inc();
    this.#duration.observe(seconds);
  }
}

/**
 * The onResponse hook of one route: `http_requests_total` and `http_request_duration_seconds`
 * labelled with the route pattern (`/executions/:id`), never the raw URL, so one series per route.
 */
export function routeObserver(metrics: MetricsRegistry, service: string, route: string): ResponseHook {
  const byMethod = new Map<string, MethodSeries>();
  return function observe(request, reply, done) {
    const method = request.method;
    let series = byMethod.get(method);
    if (series === undefined) {
      series = new MethodSeries(metrics, service, route, method);
      byMethod.set(method, series);
    }
    series.observe(reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}
