/** What the bench listener answers (docs/BENCHMARK.md); only the fields the views read. */

export interface LatencySummary {
  count: number;
  meanMs: number;
  stddevMs: number;
  minMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  platform: string;
  hostname: string;
  totalMemoryBytes: number;
}

export interface BenchResult {
  succeeded: number;
  failed: number;
  durationMs: number;
  throughputPerSecond: number;
  latency: LatencySummary;
  latencyCorrected?: LatencySummary;
  coordinatedOmission?: { method: string; expectedIntervalMs: number };
  ttft?: LatencySummary;
  interTokenLatency?: LatencySummary;
  outputTokens?: number;
  outputTokensPerSecond?: number;
  statusCodes?: Record<string, number>;
  errorsByKind: Record<string, number>;
  machine: Machine;
  /** Every successful measured latency, in completion order (absent from /history rows). */
  samplesMs?: number[];
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface BenchJob {
  jobId: string;
  name: string | null;
  provider: string;
  model: string | null;
  target: string | null;
  status: JobStatus;
  progress: { done: number; total: number };
  settings: { testRuns: number; warmupRuns: number; concurrency: number };
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: BenchResult | null;
  error: { code: string; message: string } | null;
}

export interface History {
  runs: BenchJob[];
  total: number;
  limit: number;
  offset: number;
}

export interface Comparison {
  deltaMeanMs: number;
  deltaPercent: number;
  significant: boolean;
  verdict: 'regression' | 'improvement' | 'no significant change';
  alpha: number;
  minimumDeltaPercent: number;
  baseline: { jobId: string; name: string | null; n: number; meanMs: number; stddevMs: number };
  candidate: { jobId: string; name: string | null; n: number; meanMs: number; stddevMs: number };
  welch: { t: number; df: number; pValue: number };
  effectSize: { cohensD: number; magnitude: string };
  mannWhitney: { u: number; pValue: number; probabilityOfSuperiority: number; significant: boolean };
}
