import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client's gauges named like counters. Prometheus keeps the `_total` suffix for counters, and
 * `promtool check metrics` refuses a gauge that carries it. Each is the sum of its sibling labelled
 * by type: `sum(nodejs_active_handles)` gives what `nodejs_active_handles_total` gave.
 */
const COUNTER_NAMED_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The event-loop delay statistics, by metric name, from an `IntervalHistogram` in nanoseconds. */
const DELAY_STATISTICS = {
  nodejs_eventloop_lag_min_seconds: { help: 'The minimum recorded event loop delay.', of: (h: Delays) => h.min },
  nodejs_eventloop_lag_max_seconds: { help: 'The maximum recorded event loop delay.', of: (h: Delays) => h.max },
  nodejs_eventloop_lag_mean_seconds: { help: 'The mean of the recorded event loop delays.', of: (h: Delays) => h.mean },
  nodejs_eventloop_lag_stddev_seconds: { help: 'The standard deviation of the recorded event loop delays.', of: (h: Delays) => h.stddev },
  nodejs_eventloop_lag_p50_seconds: { help: 'The 50th percentile of the recorded event loop delays.', of: (h: Delays) => h.percentile(50) },
  nodejs_eventloop_lag_p90_seconds: { help: 'The 90th percentile of the recorded event loop delays.', of: (h: Delays) => h.percentile(90) },
  nodejs_eventloop_lag_p99_seconds: { help: 'The 99th percentile of the recorded event loop delays.', of: (h: Delays) => h.percentile(99) },
} as const;

type Delays = ReturnType<typeof monitorEventLoopDelay>;

/** How often the delay is sampled, in milliseconds: prom-client's default. */
const SAMPLE_EVERY_MS = 10;

/**
 * prom-client's default process metrics, as `promtool check metrics` accepts them:
 *
 * - the three gauges named `*_total` are left out (see COUNTER_NAMED_GAUGES);
 * - the event-loop delay statistics are our own. prom-client's read its histogram at every scrape
 *   and reset it; a scrape that found no sample since the last one (two listeners of one process
 *   scraped within 10 ms share this registry) wrote a mean and deviation of NaN, as `Nan`, which the
 *   text format does not allow, and a minimum of 9.2e9 s. Ours keep the last values until a new
 *   sample arrives. Names, help and meaning are unchanged: statistics since the previous scrape.
 *
 * `nodejs_eventloop_lag_seconds` (the delay of one `setImmediate` at scrape time) stays prom-client's.
 */
export function collectProcessMetrics(registry: Registry): void {
  // prom-client's own delay histogram feeds only the statistics replaced below: it is sampled as
  // rarely as its option allows, rather than every 10 ms for nothing.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 3_600_000 });
  for (const name of [...COUNTER_NAMED_GAUGES, ...Object.keys(DELAY_STATISTICS)]) registry.removeSingleMetric(name);
  registerEventLoopDelay(registry);
}

function registerEventLoopDelay(registry: Registry): void {
  const delays = monitorEventLoopDelay({ resolution: SAMPLE_EVERY_MS });
  delays.enable();
  const gauges: Array<[Gauge, (h: Delays) => number]> = [];
  // One scrape reads every statistic from one window: the first gauge registered reads and resets
  // the histogram for all of them (a registry collects its metrics in registration order).
  const readWindow = (): void => {
    if (delays.count === 0) return;
    for (const [gauge, of] of gauges) gauge.set(of(delays) / 1e9);
    delays.reset();
  };
  for (const [name, { help, of }] of Object.entries(DELAY_STATISTICS)) {
    const gauge = new Gauge({ name, help, registers: [registry], ...(gauges.length === 0 ? { collect: readWindow } : {}) });
    gauges.push([gauge, of]);
  }
}
