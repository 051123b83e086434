/** Configuration: the environment, read once, validated, defaulted, frozen. */
export { Secret } from './secret.ts';
export type { BenchSettings } from './config.ts';
export {
  loadConfig,
  ConfigError,
  SERVICES,
  PORT_VARIABLES,
  URL_VARIABLES,
  type SuiteConfig,
  type ServiceName,
  type StoredSecrets,
  type TrustSettings,
} from './config.ts';
export { ensureStoredSecrets } from './first-run.ts';
export type { TracingSettings } from './tracing.ts';
export { listenerUrl } from './listeners.ts';
export type { McpUpstreamConfig } from './mcp-upstreams.ts';
export { readMcpPolicy } from './mcp-policy.ts';
