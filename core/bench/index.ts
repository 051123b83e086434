/** The benchmark service's pure logic: latency statistics, the comparison tests, the regression rule, reports. */
export { summarizeLatencies, summarizeCorrected, latencyBuckets, PERCENTILES, type LatencySummary } from './latency.ts';
export { meanAndStddev, welchTTest, cohensD, type WelchResult } from './welch.ts';
export { mannWhitneyU, type MannWhitneyResult } from './mann-whitney.ts';
export { compareLatencies, ALPHA, MINIMUM_DELTA_PERCENT, type Comparison, type Verdict } from './compare.ts';
export { estimateDurationSeconds, formatDuration } from './estimate.ts';
export { markdownReport, type ReportInput } from './report.ts';
