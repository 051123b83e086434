import { latencyBuckets, PERCENTILES, type LatencySummary } from './latency.ts';

/** What a Markdown report is made from (a finished job's result, the parts a person reads). */
export interface ReportInput {
  jobId: string;
  name: string | null;
  provider: string;
  model: string | null;
  target: string | null;
  status: string;
  settings: { testRuns: number; warmupRuns: number; concurrency: number };
  machine: { cpuModel: string; cores: number; node: string; platform: string };
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number;
  throughputPerSecond: number;
  succeeded: number;
  failed: number;
  errorsByKind: Record<string, number>;
  statusCodes?: Record<string, number>;
  latency: LatencySummary;
  latencyCorrected?: LatencySummary;
  ttft?: LatencySummary;
  interTokenLatency?: LatencySummary;
  outputTokensPerSecond?: number;
  samplesMs: readonly number[];
}

const ms = (x: number): string => `${x.toFixed(x < 10 ? 3 : 1)} ms`;

/** The Markdown report: a summary, the percentile table, and a text histogram of the latencies. */
export function markdownReport(r: ReportInput): string {
  const lines: string[] = [];
  const title = r.name ?? r.jobId;
  lines.push(`# Benchmark ${title}`, '');
  lines.push(
    `${r.provider}${r.model ? ` model ${r.model}` : ''}${r.target ? ` at ${r.target}` : ''}: ` +
      `${r.succeeded} of ${r.succeeded + r.failed} calls succeeded in ${(r.durationMs / 1000).toFixed(2)} s ` +
      `(${r.throughputPerSecond.toFixed(1)} calls/s, concurrency ${r.settings.concurrency}, ${r.settings.warmupRuns} warm-up calls discarded). ` +
      `Median latency ${ms(r.latency.p50Ms)}, p99 ${ms(r.latency.p99Ms)}.`,
    '',
  );
  if (r.ttft) lines.push(`Time to first token: median ${ms(r.ttft.p50Ms)}, p99 ${ms(r.ttft.p99Ms)}.`);
  if (r.interTokenLatency) lines.push(`Inter-token latency: median ${ms(r.interTokenLatency.p50Ms)}, p99 ${ms(r.interTokenLatency.p99Ms)}.`);
  if (r.outputTokensPerSecond !== undefined) lines.push(`Output tokens per second (per call, mean): ${r.outputTokensPerSecond.toFixed(1)}.`);
  if (r.ttft || r.interTokenLatency || r.outputTokensPerSecond !== undefined) lines.push('');
  lines.push(
    `Machine: ${r.machine.cpuModel}, ${r.machine.cores} cores, Node ${r.machine.node}, ${r.machine.platform}. ` +
      `Status: ${r.status}; started ${r.startedAt ?? '-'}, finished ${r.finishedAt ?? '-'}.`,
    '',
  );

  const table = (label: string, s: LatencySummary) =>
    `| ${label} | ${s.count} | ${ms(s.meanMs)} | ${ms(s.stddevMs)} | ` + `${PERCENTILES.map(([key]) => ms(s[key])).join(' | ')} | ${ms(s.maxMs)} |`;
  lines.push('| Latency | n | mean | stddev | p50 | p90 | p95 | p99 | p99.9 | max |', '|---|---|---|---|---|---|---|---|---|---|');
  lines.push(table('measured', r.latency));
  if (r.latencyCorrected) lines.push(table('corrected for coordinated omission', r.latencyCorrected));
  if (r.ttft) lines.push(table('time to first token', r.ttft));
  if (r.interTokenLatency) lines.push(table('inter-token', r.interTokenLatency));
  lines.push('');

  const buckets = latencyBuckets(r.samplesMs, 10);
  if (buckets.length > 0) {
    const most = Math.max(...buckets.map((b) => b.count));
    lines.push('```');
    for (const b of buckets) {
      const bar = '#'.repeat(most === 0 ? 0 : Math.round((b.count / most) * 40));
      lines.push(`${b.fromMs.toFixed(2).padStart(10)} - ${b.toMs.toFixed(2).padEnd(10)} ms | ${bar} ${b.count}`);
    }
    lines.push('```', '');
  }
  const codes = Object.entries(r.statusCodes ?? {});
  if (codes.length > 0) lines.push(`Status codes: ${codes.map(([c, n]) => `${c}: ${n}`).join(', ')}.`);
  const errors = Object.entries(r.errorsByKind);
  lines.push(errors.length > 0 ? `Errors: ${errors.map(([k, n]) => `${k}: ${n}`).join(', ')}.` : 'Errors: none.');
  return `${lines.join('\n')}\n`;
}
