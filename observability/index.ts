export { createLogger, REDACT_PATHS, type LoggerOptions } from './logger.ts';
export {
  createMetricsRegistry,
  type MetricsRegistry,
  type HttpRequestLabels,
  type HttpDurationLabels,
} from './metrics.ts';
export { startTracing, type Tracing, type TracingOptions } from './tracing.ts';
export type { EdgeTracing } from './http-tracing.ts';
