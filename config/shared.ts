import { auditConfig, type AuditConfig } from './audit.ts';
import { busConfig, type BusConfig } from './bus.ts';
import { capabilityConfig, type CapabilityConfig } from './capability.ts';
import { httpConfig, type HttpConfig } from './http.ts';
import { listenersConfig, type ListenersConfig } from './listeners.ts';
import { llmConfig, type LlmConfig } from './llm.ts';
import { mcpClientConfig, type McpClientConfig } from './mcp-client.ts';
import { outboundConfig, type OutboundConfig } from './outbound.ts';
import { processConfig, type ProcessConfig } from './process.ts';
import type { ConfigReader } from './reader.ts';
import { secretsConfig, type SecretsConfig, type StoredSecrets } from './secrets.ts';
import { storageConfig, type StorageConfig } from './storage.ts';
import { loadTracingSettings, type TracingSettings } from './tracing.ts';

/**
 * The sections several parts of the suite read (the runtime, the edges, more than one service); a
 * section only one service reads is declared in that service's folder (services/<name>/config.ts).
 */
export interface SharedConfig
  extends ProcessConfig,
    SecretsConfig,
    ListenersConfig,
    HttpConfig,
    CapabilityConfig,
    StorageConfig,
    BusConfig,
    AuditConfig,
    OutboundConfig,
    LlmConfig,
    McpClientConfig {
  /** OpenTelemetry tracing, from the standard `OTEL_*` variables (config/tracing.ts). */
  readonly tracing: TracingSettings;
}

export function sharedConfig(read: ConfigReader, stored: StoredSecrets | undefined): SharedConfig {
  const process = processConfig(read);
  const storage = storageConfig(read);
  return {
    ...process,
    ...secretsConfig(read, process.production, stored),
    ...listenersConfig(read),
    ...httpConfig(read),
    ...capabilityConfig(read),
    ...storage,
    ...busConfig(read),
    ...auditConfig(read, storage.dataDir),
    ...outboundConfig(read),
    ...llmConfig(read),
    ...mcpClientConfig(read),
    tracing: loadTracingSettings(read.str, read.fail),
  };
}
