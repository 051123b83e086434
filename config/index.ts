/** Configuration: the environment, read once, validated, defaulted, frozen. */
export { Secret } from './secret.ts';
export type { BenchSettings } from './config.ts';
export { loadConfig, ConfigError, SERVICES, DEFAULT_PORTS, PORT_VARIABLES, URL_VARIABLES, type SuiteConfig, type ServiceName, type StoredSecrets, type TrustSettings } from './config.ts';
export { ensureStoredSecrets } from './first-run.ts';
export { DEFAULT_SERVICE_NAME, SAMPLERS, type SamplerName, type TracingSettings } from './tracing.ts';
export { listenerUrl } from './listeners.ts';
export { UPSTREAM_NAME, UPSTREAM_DEFAULTS, UPSTREAMS_VARIABLE, type McpUpstreamConfig, type McpUpstreamTransport } from './mcp-upstreams.ts';
export { WITNESSES_VARIABLE, type TlogWitnessConfig } from './tlog-witnesses.ts';
