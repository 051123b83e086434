import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  attempt(outcome: string): void;
  fired(latenessMs: readonly number[]): void;
}

/**
 * The scheduler's metrics on the process's registry (served by `/metrics` of any edge in the same
 * process): attempts by outcome, queue depth by priority (read from the database at scrape time),
 * firing lateness (due time to the firing enqueued and runnable).
 */
export function schedulerMetrics(
  registry: Registry,
  depth: () => Promise<{ high: number; normal: number; low: number; running: number; oldestWaitingMs: number | null }>,
): SchedulerMetrics {
  // The two queue gauges are collected at once: they share one query per scrape.
  let reading: ReturnType<typeof depth> | undefined;
  const read = () =>
    (reading ??= depth().finally(() => {
      reading = undefined;
    }));
  const attempts = new Counter({
    name: 'scheduler_task_attempts_total',
    help: 'Task attempts ended, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const lateness = new Histogram({
    name: 'scheduler_firing_lateness_seconds',
    help: "From a firing's due time to its task enqueued and runnable",
    buckets: [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'scheduler_queue_depth',
    help: 'Unfinished tasks of the shared queue, by priority (running: being run)',
    labelNames: ['priority'] as const,
    registers: [registry],
    async collect() {
      try {
        const d = await read();
        for (const p of ['high', 'normal', 'low', 'running'] as const) this.set({ priority: p }, d[p]);
      } catch {
        // Storage unreachable at scrape time: the gauge keeps its last values rather than failing /metrics.
      }
    },
  });
  new Gauge({
    name: 'scheduler_queue_oldest_wait_seconds',
    help: 'How long the oldest runnable task of the shared queue has waited to be claimed (0: none waits)',
    registers: [registry],
    async collect() {
      try {
        this.set(Math.max(0, (await read()).oldestWaitingMs ?? 0) / 1000);
      } catch {
        // As above: the last value stays.
      }
    },
  });
  return {
    attempt: (outcome) => attempts.inc({ outcome }),
    fired: (ms) => {
      for (const m of ms) lateness.observe(m / 1000);
    },
  };
}
