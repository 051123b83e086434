export { createLogger, REDACT_PATHS, type LoggerOptions } from './logger.ts';
export {
  createMetricsRegistry,
  type MetricsRegistry,
  type HttpRequestLabels,
  type HttpDurationLabels,
} from './metrics.ts';
