export { createLogger, REDACT_PATHS, type LoggerOptions } from './logger.ts';
export {
  createMetricsRegistry,
  type MetricsRegistry,
  type HttpRequestLabels,
  type HttpDurationLabels,
  type ServiceMetrics,
} from './metrics.ts';
export type {
  ChainMetrics, PromiseMetrics, WatchedAuditSink, WatchedChainWriter, WatchedRevocationView, WatchedWitnesses,
} from './promise-metrics.ts';
export { activeTraceParent, backgroundSpan, batchSpan, detached, linkFromTraceParent, linkToActive, workSpan } from './work-spans.ts';
export { startTracing, type Tracing, type TracingOptions } from './tracing.ts';
export { startMetricsListener, type MetricsListener } from './metrics-listener.ts';
export type { EdgeTracing } from './http-tracing.ts';
