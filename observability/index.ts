export { createLogger, REDACT_PATHS } from './logger.ts';
export {
  createMetricsRegistry,
  type MetricsRegistry,
  type HttpRequestLabels,
  type HttpDurationLabels,
} from './metrics.ts';
export type {
  ChainMetrics,
  PromiseMetrics,
} from './promise-metrics.ts';
export { activeTraceParent, backgroundSpan, batchSpan, detached, linkFromTraceParent, linkToActive } from './work-spans.ts';
export { startTracing, type Tracing } from './tracing.ts';
export { startMetricsListener } from './metrics-listener.ts';
export type { EdgeTracing } from './http-tracing.ts';
