/**
 * Configuration: the environment, read once, validated, defaulted, frozen. The sections several parts
 * read live here, one file each; a service's own section lives in its folder (services/<name>/config.ts)
 * and services/index.ts composes them all (docs/ARCHITECTURE.md, "Configuration").
 */
export { Secret } from './secret.ts';
export { ConfigError, type ConfigReader, type Env } from './reader.ts';
export { composeConfig, loadSharedConfig, readSection, type ConfigSection } from './compose.ts';
export type { SharedConfig } from './shared.ts';
export type { StoredSecrets } from './secrets.ts';
export { SERVICES, PORT_VARIABLES, URL_VARIABLES, listenerUrl, type ServiceName } from './listeners.ts';
export { ollamaHost } from './llm.ts';
export { ensureStoredSecrets } from './first-run.ts';
export type { TracingSettings } from './tracing.ts';
