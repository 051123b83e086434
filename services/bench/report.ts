import type { ReportInput } from '../../core/bench/index.ts';
import type { JobViewData } from './subjects.ts';

/** The report of a succeeded job, from its stored result (docs/BENCHMARK.md, "Report"). */
export function reportInputOf(job: JobViewData): ReportInput {
  const r = (job.result ?? {}) as Record<string, unknown> & Partial<ReportInput>;
  return {
    jobId: job.jobId,
    name: job.name,
    provider: job.provider,
    model: job.model,
    target: job.target,
    status: job.status,
    settings: job.settings,
    machine: r.machine as ReportInput['machine'],
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    durationMs: r.durationMs ?? 0,
    throughputPerSecond: r.throughputPerSecond ?? 0,
    succeeded: r.succeeded ?? 0,
    failed: r.failed ?? 0,
    errorsByKind: r.errorsByKind ?? {},
    statusCodes: r.statusCodes ?? {},
    latency: r.latency as ReportInput['latency'],
    ...(r.latencyCorrected ? { latencyCorrected: r.latencyCorrected } : {}),
    ...(r.ttft ? { ttft: r.ttft } : {}),
    ...(r.interTokenLatency ? { interTokenLatency: r.interTokenLatency } : {}),
    ...(r.outputTokensPerSecond !== undefined ? { outputTokensPerSecond: r.outputTokensPerSecond } : {}),
    samplesMs: (r.samplesMs ?? []) as number[],
  };
}
