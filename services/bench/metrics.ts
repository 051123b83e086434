import { Counter, Gauge, type Registry } from 'prom-client';

/** A runner's metrics (docs/BENCHMARK.md, "Metrics and spans"), in its process's registry. */
export interface BenchMetrics {
  jobs: Counter<'provider' | 'outcome'>;
  calls: Counter<'provider' | 'result'>;
  running: Gauge;
}

export function benchMetrics(registry: Registry): BenchMetrics {
  return {
    jobs: new Counter({
      name: 'bench_jobs_total',
      help: 'Benchmark jobs this process measured, by provider and how they ended (succeeded, failed, released, lost)',
      labelNames: ['provider', 'outcome'] as const,
      registers: [registry],
    }),
    calls: new Counter({
      name: 'bench_calls_total',
      help: 'Calls made to benchmark targets (warm-ups included), by provider and result (ok, error)',
      labelNames: ['provider', 'result'] as const,
      registers: [registry],
    }),
    running: new Gauge({ name: 'bench_jobs_running', help: 'Benchmark jobs this process is measuring now (0 or 1 per runner)', registers: [registry] }),
  };
}
