/**
 * The `estimatedDuration` of a new job: a rough guess before anything is measured, as a duration
 * string of the suite's form (`45s`, `3m`). Calls are assumed to take 50 ms against an HTTP
 * endpoint and 2 s against a model, in `concurrency` parallel lanes.
 */
export function estimateDurationSeconds(provider: string, calls: number, concurrency: number): number {
  const perCall = provider === 'http' ? 0.05 : 2;
  return Math.max(1, Math.ceil(Math.ceil(calls / Math.max(1, concurrency)) * perCall));
}

export function formatDuration(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)}m`;
  return `${Math.ceil(seconds / 3600)}h`;
}
