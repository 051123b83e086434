import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { MIN_SECRET_LENGTH } from '../core/capability/index.ts';
import { loadTracingSettings, type TracingSettings } from './tracing.ts';
import { loadConnectorSettings } from './connectors.ts';
import { Secret } from './secret.ts';
import { loadMcpUpstreams, type McpUpstreamConfig } from './mcp-upstreams.ts';
import { loadMcpPolicy, type McpPolicyFile } from './mcp-policy.ts';
import { loadTrustedIssuers } from './trusted-issuers.ts';
import type { TrustedIssuers } from '../core/federation/index.ts';
import { loadTlogWitnesses, type TlogWitnessConfig } from './tlog-witnesses.ts';

/**
 * The suite's configuration: read from the environment in this one module, validated, defaulted
 * and frozen. An error names the offending variable. Nothing else reads `process.env`.
 */

export const SERVICES = ['token', 'scheduler', 'bench', 'connector', 'trust', 'dashboard'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = {
  token: 8081,
  scheduler: 8082,
  bench: 8083,
  connector: 8084,
  trust: 8085,
  dashboard: 3001,
};

/** Where another process reaches each listener, when it runs elsewhere (SuiteConfig.listenerUrls). */
export const URL_VARIABLES: Readonly<Record<ServiceName, string>> = {
  token: 'SUITE_TOKEN_URL',
  scheduler: 'SUITE_SCHEDULER_URL',
  bench: 'SUITE_BENCH_URL',
  connector: 'SUITE_CONNECTOR_URL',
  trust: 'SUITE_TRUST_URL',
  dashboard: 'SUITE_DASHBOARD_URL',
};

export const PORT_VARIABLES: Readonly<Record<ServiceName, string>> = {
  token: 'SUITE_TOKEN_PORT',
  scheduler: 'SUITE_SCHEDULER_PORT',
  bench: 'SUITE_BENCH_PORT',
  connector: 'SUITE_CONNECTOR_PORT',
  trust: 'SUITE_TRUST_PORT',
  dashboard: 'SUITE_DASHBOARD_PORT',
};

export interface SuiteConfig {
  readonly production: boolean;
  /** `SUITE_DATA_DIR`: where first-run secrets live; also the default home of the embedded database. */
  readonly dataDir: string | undefined;
  readonly databaseUrl: string | undefined;
  /** Folder of the embedded database; undefined = in memory (nothing survives a restart). */
  readonly dbPath: string | undefined;
  /**
   * `SUITE_DATABASE_POOL_SIZE`: most connections of this process's pool; undefined = storage's
   * default (10 on a server given by URL, 4 on the embedded one: storage/open.ts).
   */
  readonly databasePoolSize: number | undefined;
  /** `SUITE_NATS_URL`, comma-separated for a cluster; undefined = the in-process memory bus. */
  readonly natsServers: readonly string[] | undefined;
  /** `SUITE_BUS_NAMESPACE`: prefix of every subject on the wire, so deployments can share a broker. */
  readonly busNamespace: string | undefined;
  /** `SUITE_NATS_USER` / `SUITE_NATS_PASSWORD`: this process's NATS user (docs/EVENTS.md, "Authorization"). */
  readonly natsUser: { readonly user: string; readonly pass: string } | undefined;
  readonly host: string;
  readonly ports: Readonly<Record<ServiceName, number>>;
  /**
   * `SUITE_METRICS_PORT`: a process without listeners (actor roles only) serves its metrics on
   * this port (`GET /metrics`); unset, it serves none (docs/OBSERVABILITY.md, Scraping).
   */
  readonly metricsPort: number | undefined;
  /**
   * `SUITE_<LISTENER>_URL` (e.g. `SUITE_TRUST_URL=http://trust:8085`): where another process reaches
   * a listener that runs elsewhere (the dashboard's probes and same-origin proxy). Unset: a listener
   * of this process at its bound port, else `host` and the configured port.
   */
  readonly listenerUrls: Readonly<Partial<Record<ServiceName, string>>>;
  /** Newest first: the first signs, all validate. */
  readonly hmacSecrets: readonly string[];
  readonly adminKey: string | undefined;
  /** `SUITE_MCP_TOKEN`: the capability token `suite mcp` (stdio) acts with; required by that command only. */
  readonly mcpToken: string | undefined;
  /**
   * `SUITE_MCP_CLIENT_ID` (and `SUITE_MCP_CLIENT_SECRET`, `SUITE_MCP_SCOPE`): without SUITE_MCP_TOKEN,
   * `suite mcp` obtains its token from the suite's OAuth token endpoint, by client credentials with a
   * secret, else by the device grant (docs/OAUTH.md).
   */
  readonly mcpClient: { readonly clientId: string; readonly clientSecret?: string; readonly scope?: string } | undefined;
  readonly tracePrivateKeyPem: string | undefined;
  readonly audience: string | undefined;
  /**
   * `SUITE_PUBLIC_URL`: the token listener's public URL (no trailing slash), the OAuth issuer and the
   * base of its endpoints (docs/OAUTH.md); unset: the token listener's own address.
   */
  readonly publicUrl: string | undefined;
  readonly logLevel: string;
  /**
   * `SUITE_LOG_FORMAT`: `json` (pino's lines, for collectors) or `pretty` (one short line per entry,
   * for people); undefined: pretty when standard output is a terminal, JSON otherwise (decided by
   * cli/command.ts, which owns the process's streams).
   */
  readonly logFormat: 'json' | 'pretty' | undefined;
  /** False when `NO_COLOR` is set (no-color.org): pretty logs and the first screen stay plain. */
  readonly color: boolean;
  readonly accessLog: boolean;
  readonly rateLimit: { readonly max: number; readonly windowMs: number };
  readonly bodyLimitBytes: number;
  /** `SUITE_HTTP_HEADERS_TIMEOUT_MS`, `SUITE_HTTP_REQUEST_TIMEOUT_MS`, `SUITE_HTTP_KEEPALIVE_TIMEOUT_MS`: slow or idle sockets closed (edge-http/app.ts). */
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number };
  readonly revocationStalenessMs: number;
  /** Lease of a chain writer (audit, executions): a standby takes over this long after the leader died. */
  readonly chainLeaseMs: number;
  /** How often the leader renews its lease and a standby tries to take it (shorter than the lease). */
  readonly chainLeaseRenewMs: number;
  /**
   * `SUITE_TLOG_ORIGIN`: the execution log's checkpoint origin and key name (docs/TRACE-FORMAT.md,
   * "The transparency log"); a schema-less URL, ideally the public prefix of `/executions/log`.
   */
  readonly tlogOrigin: string;
  /** `SUITE_TLOG_WITNESSES`: the witnesses asked to cosign the log's checkpoints (config/tlog-witnesses.ts). */
  readonly tlogWitnesses: readonly TlogWitnessConfig[];
  /**
   * `SUITE_RETENTION_EVERY_MS`, `SUITE_RETENTION_BATCH`: how often the retention pruner runs (in a
   * chain-writer process) and how many entries each of its transactions deletes (docs/TENANCY.md,
   * "Retention").
   */
  readonly retention: { readonly everyMs: number; readonly batch: number };
  readonly shutdownGraceMs: number;
  /**
   * The embedded Postgres is restarted when it dies: at most `attempts` times per death, and never
   * once it has been down `windowMs`; then the process exits non-zero (storage/embedded-supervisor.ts).
   */
  readonly dbRestart: { readonly attempts: number; readonly windowMs: number };
  /**
   * `SUITE_AUDIT_JOURNAL_DIR`: this process's audit journal (actors/audit/journal.ts); default
   * `<SUITE_DATA_DIR>/audit-journal`; undefined (no data folder): decisions wait for the chain.
   */
  readonly auditJournalDir: string | undefined;
  readonly schedulerScriptRoot: string | undefined;
  /**
   * `SUITE_OUTBOUND_ALLOW`: non-public addresses and CIDR ranges outbound calls may reach (`none`,
   * `loopback`, addresses, ranges). Undefined = the mode's default (actors/outbound/policy.ts).
   */
  readonly outboundAllow: readonly string[] | undefined;
  /** The scheduler's workers and queue (docs/SCHEDULER.md); every duration in milliseconds. */
  readonly scheduler: {
    /** `SCHEDULER_WORKERS`: tasks one scheduler actor runs at a time. */
    readonly workers: number;
    /** `SCHEDULER_QUEUE_MAX`: unfinished tasks the queue holds before `POST /queue` answers 429. */
    readonly queueMax: number;
    /** `SCHEDULER_QUEUE_TENANT_MAX`: unfinished tasks one tenant may hold (callers without a tenant count as one). */
    readonly queueTenantMax: number;
    /** `SCHEDULER_LEASE_MARGIN_MS`: past a task's timeout, this long before its worker is presumed dead. */
    readonly leaseMarginMs: number;
    /** `SCHEDULER_POLL_MS`: how often idle workers look at the shared queue. */
    readonly pollMs: number;
  };
  readonly signupEnabled: boolean;
  readonly billingWebhookSecret: string | undefined;
  /**
   * LLM providers that are configured (`GET /ai/providers`; called by the benchmark service, never by
   * the policy generator). Whether a key is set, never its value; the Ollama address has no secret.
   */
  readonly llm: { readonly openai: boolean; readonly anthropic: boolean; readonly ollamaHost: string | undefined };
  /** OpenTelemetry tracing, from the standard `OTEL_*` variables (config/tracing.ts). */
  readonly tracing: TracingSettings;
  /** The trust service (docs/TRUST.md): score gating (off by default) and the anomaly bounds. */
  readonly trust: TrustSettings;
  /**
   * The connectors' variables that are set (`CONNECTOR_*`, docs/CONNECTORS.md), by name. Holds
   * credentials: only the connector service reads it, and nothing logs it.
   */
  readonly connectors: Readonly<Record<string, string>>;
  /** The benchmark service (docs/BENCHMARK.md): where each LLM provider is, its key, the runner's lease. */
  readonly bench: BenchSettings;
  /** The MCP gateway's upstream servers, from the file `SUITE_MCP_UPSTREAMS` names (config/mcp-upstreams.ts); none when unset. Holds credentials. */
  readonly mcpUpstreams: readonly McpUpstreamConfig[];
  /** The gateway's policy file (`SUITE_MCP_POLICY`): its path, to reload it, and its policy as checked at start; undefined without one. */
  readonly mcpPolicy: McpPolicyFile | undefined;
  /** Workload identity federation's trusted issuers (`SUITE_OAUTH_TRUSTED_ISSUERS`, config/trusted-issuers.ts), checked; undefined: none. */
  readonly oauthTrustedIssuers: TrustedIssuers | undefined;
}

export interface TrustSettings {
  /** `SUITE_TRUST_GATING`: when false (the default) `POST /score/{id}/check` always allows. */
  readonly gating: boolean;
  /** `SUITE_TRUST_GATE_THRESHOLD`: with gating on, a score below this is not allowed. */
  readonly gateThreshold: number;
  /** `SUITE_TRUST_MAX_DEPTH`: a chain deeper than this is a runaway. */
  readonly maxDepth: number;
  /** `SUITE_TRUST_MAX_FANOUT`: an interaction with more direct children than this is a runaway. */
  readonly maxFanOut: number;
  /** `SUITE_TRUST_STALL_MS`: a chain with a pending interaction and no activity for this long is stalled. */
  readonly stallMs: number;
}

export interface BenchSettings {
  /** `OPENAI_BASE_URL`, default https://api.openai.com/v1 (any OpenAI-compatible server). */
  readonly openaiBaseUrl: string;
  /** `ANTHROPIC_BASE_URL`, default https://api.anthropic.com. */
  readonly anthropicBaseUrl: string;
  /** `OLLAMA_HOST`, default http://127.0.0.1:11434. */
  readonly ollamaBaseUrl: string;
  /** `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`: sent only to their configured base URL, never shown. */
  readonly openaiApiKey: Secret | undefined;
  readonly anthropicApiKey: Secret | undefined;
  /** `SUITE_BENCH_LEASE_MS`: a runner's claim on a job; another runner takes the job this long after the runner died. */
  readonly leaseMs: number;
  /** `SUITE_BENCH_POLL_MS`: how often an idle runner looks for queued jobs. */
  readonly pollMs: number;
}

/** Secrets made on first run and kept in the data folder; environment variables always win. */
export interface StoredSecrets {
  hmacSecret: string;
  adminKey: string;
  tracePrivateKeyPem: string;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * `<data folder>/database`; but a data folder of an earlier version keeps its database where that
 * version put it, `<data folder>/pglite` (storage/ decides which engine opens it).
 */
function embeddedDbPath(dataDir: string): string {
  const earlier = `${dataDir}/pglite`;
  return existsSync(earlier) ? earlier : `${dataDir}/database`;
}

export function loadConfig(env: Env, stored?: StoredSecrets): SuiteConfig {
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  };

  const production = str('NODE_ENV') === 'production';
  const envSecret = str('SUITE_HMAC_SECRET');
  if (envSecret !== undefined && envSecret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError('SUITE_HMAC_SECRET', `must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (production && envSecret === undefined) {
    throw new ConfigError('SUITE_HMAC_SECRET', `is required in production (NODE_ENV=production), ${MIN_SECRET_LENGTH}+ characters`);
  }
  const previous = (str('SUITE_HMAC_PREVIOUS_SECRETS') ?? '').split(/[\s,]+/).filter((s) => s !== '');
  for (const p of previous) {
    if (p.length < MIN_SECRET_LENGTH) throw new ConfigError('SUITE_HMAC_PREVIOUS_SECRETS', `each secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const signing = envSecret ?? stored?.hmacSecret;
  const hmacSecrets = signing === undefined ? [] : [signing, ...previous.filter((p) => p !== signing)];

  const ports = {} as Record<ServiceName, number>;
  for (const service of SERVICES) ports[service] = int(PORT_VARIABLES[service], DEFAULT_PORTS[service], 0, 65535);
  const listenerUrls: Partial<Record<ServiceName, string>> = {};
  for (const service of SERVICES) {
    const name = URL_VARIABLES[service];
    const value = str(name);
    if (value === undefined) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(name, 'must be an http:// or https:// URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '') {
      throw new ConfigError(name, 'must be an http:// or https:// URL with no query, fragment or credentials');
    }
    listenerUrls[service] = url.href.replace(/\/+$/, '');
  }

  const dataDir = str('SUITE_DATA_DIR');
  const databaseUrl = str('SUITE_DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('SUITE_DATABASE_URL', 'must be a postgres:// URL');
  }
  const natsServers = str('SUITE_NATS_URL')
    ?.split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const url of natsServers ?? []) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s]+$/.test(url) && !/^[\w.-]+:\d+$/.test(url)) {
      throw new ConfigError('SUITE_NATS_URL', `"${url}" is not a nats:// URL or host:port (separate several with commas)`);
    }
  }
  const busNamespace = str('SUITE_BUS_NAMESPACE');
  if (busNamespace !== undefined && !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(busNamespace)) {
    throw new ConfigError('SUITE_BUS_NAMESPACE', 'must be dot-separated tokens of letters, digits, _ and -');
  }
  const natsUserName = str('SUITE_NATS_USER');
  const natsPassword = str('SUITE_NATS_PASSWORD');
  if ((natsUserName === undefined) !== (natsPassword === undefined)) {
    throw new ConfigError(
      natsUserName === undefined ? 'SUITE_NATS_USER' : 'SUITE_NATS_PASSWORD',
      'SUITE_NATS_USER and SUITE_NATS_PASSWORD go together: set both or neither',
    );
  }
  const logLevel = str('SUITE_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('SUITE_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = str('SUITE_LOG_FORMAT');
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError('SUITE_LOG_FORMAT', 'must be json or pretty');
  const traceKey = str('SUITE_TRACE_PRIVATE_KEY')?.replace(/\\n/g, '\n');
  if (traceKey !== undefined && !traceKey.includes('PRIVATE KEY')) {
    throw new ConfigError('SUITE_TRACE_PRIVATE_KEY', 'must be a PEM-encoded Ed25519 private key');
  }

  // Defaults by measurement (docs/RELIABILITY.md, "Chain writer failover"): takeover under 2 s p99
  // (distributed), and an embedded suite restarted after a crash waits out a shorter lease of its
  // dead self. A renewal at most half the lease leaves the leader a second chance before it expires.
  const chainLeaseMs = int('SUITE_CHAIN_LEASE_MS', 1500, 300, 60_000);
  const chainLeaseRenewMs = int('SUITE_CHAIN_LEASE_RENEW_MS', Math.max(50, Math.floor(chainLeaseMs / 6)), 50, 30_000);
  if (chainLeaseRenewMs * 2 > chainLeaseMs) {
    throw new ConfigError('SUITE_CHAIN_LEASE_RENEW_MS', `must be at most half of SUITE_CHAIN_LEASE_MS (${chainLeaseMs}), got ${chainLeaseRenewMs}`);
  }
  return deepFreeze({
    production,
    dataDir,
    databaseUrl,
    dbPath: str('SUITE_DB_PATH') ?? (dataDir !== undefined && databaseUrl === undefined ? embeddedDbPath(dataDir) : undefined),
    databasePoolSize: str('SUITE_DATABASE_POOL_SIZE') === undefined ? undefined : int('SUITE_DATABASE_POOL_SIZE', 0, 1, 100),
    natsServers: natsServers !== undefined && natsServers.length > 0 ? natsServers : undefined,
    busNamespace,
    natsUser: natsUserName !== undefined && natsPassword !== undefined ? { user: natsUserName, pass: natsPassword } : undefined,
    host: str('SUITE_HOST') ?? '127.0.0.1',
    ports,
    metricsPort: str('SUITE_METRICS_PORT') === undefined ? undefined : int('SUITE_METRICS_PORT', 0, 0, 65_535),
    listenerUrls,
    hmacSecrets,
    adminKey: str('SUITE_ADMIN_KEY') ?? stored?.adminKey,
    mcpToken: str('SUITE_MCP_TOKEN'),
    mcpClient: mcpClientOf(str('SUITE_MCP_CLIENT_ID'), str('SUITE_MCP_CLIENT_SECRET'), str('SUITE_MCP_SCOPE')),
    tracePrivateKeyPem: traceKey ?? stored?.tracePrivateKeyPem,
    audience: str('SUITE_AUDIENCE'),
    publicUrl: publicUrlOf(str('SUITE_PUBLIC_URL')),
    logLevel,
    logFormat,
    // no-color.org: set to anything but the empty string.
    color: (env.NO_COLOR ?? '') === '',
    accessLog: bool('SUITE_ACCESS_LOG', false),
    rateLimit: {
      max: int('SUITE_RATE_LIMIT_MAX', 6000, 1, 100_000_000),
      windowMs: int('SUITE_RATE_LIMIT_WINDOW_MS', 1000, 100, 3_600_000),
    },
    bodyLimitBytes: int('SUITE_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    httpTimeouts: httpTimeouts(int),
    revocationStalenessMs: int('SUITE_REVOCATION_STALENESS_MS', 3000, 500, 60_000),
    chainLeaseMs,
    chainLeaseRenewMs,
    tlogOrigin: tlogOrigin(str('SUITE_TLOG_ORIGIN')),
    tlogWitnesses: loadTlogWitnesses(str('SUITE_TLOG_WITNESSES'), (variable, message) => new ConfigError(variable, message)),
    retention: {
      everyMs: int('SUITE_RETENTION_EVERY_MS', 300_000, 1000, 86_400_000),
      batch: int('SUITE_RETENTION_BATCH', 1000, 1, 100_000),
    },
    shutdownGraceMs: int('SUITE_SHUTDOWN_GRACE_MS', 10_000, 0, 300_000),
    auditJournalDir: str('SUITE_AUDIT_JOURNAL_DIR') ?? (dataDir !== undefined ? `${dataDir}/audit-journal` : undefined),
    dbRestart: {
      attempts: int('SUITE_DB_RESTART_ATTEMPTS', 5, 1, 100),
      windowMs: int('SUITE_DB_RESTART_WINDOW_MS', 60_000, 1_000, 3_600_000),
    },
    schedulerScriptRoot: str('SCHEDULER_SCRIPT_ROOT'),
    outboundAllow: outboundAllowList(str('SUITE_OUTBOUND_ALLOW')),
    scheduler: {
      workers: int('SCHEDULER_WORKERS', 16, 1, 1024),
      queueMax: int('SCHEDULER_QUEUE_MAX', 10_000, 1, 10_000_000),
      queueTenantMax: int('SCHEDULER_QUEUE_TENANT_MAX', 1_000, 1, 10_000_000),
      leaseMarginMs: int('SCHEDULER_LEASE_MARGIN_MS', 30_000, 100, 3_600_000),
      pollMs: int('SCHEDULER_POLL_MS', 200, 5, 60_000),
    },
    signupEnabled: bool('SUITE_SIGNUP_ENABLED', false),
    billingWebhookSecret: str('BILLING_WEBHOOK_SECRET'),
    llm: { openai: str('OPENAI_API_KEY') !== undefined, anthropic: str('ANTHROPIC_API_KEY') !== undefined, ollamaHost: ollamaHost(str('OLLAMA_HOST')) },
    tracing: loadTracingSettings(str, (variable, message) => new ConfigError(variable, message)),
    trust: {
      gating: bool('SUITE_TRUST_GATING', false),
      gateThreshold: int('SUITE_TRUST_GATE_THRESHOLD', 40, 0, 100),
      maxDepth: int('SUITE_TRUST_MAX_DEPTH', 16, 1, 10_000),
      maxFanOut: int('SUITE_TRUST_MAX_FANOUT', 32, 1, 100_000),
      stallMs: int('SUITE_TRUST_STALL_MS', 300_000, 1000, 30 * 24 * 3_600_000),
    },
    connectors: loadConnectorSettings(str, (variable, message) => new ConfigError(variable, message)),
    bench: {
      openaiBaseUrl: baseUrl('OPENAI_BASE_URL', str('OPENAI_BASE_URL') ?? 'https://api.openai.com/v1'),
      anthropicBaseUrl: baseUrl('ANTHROPIC_BASE_URL', str('ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com'),
      ollamaBaseUrl: ollamaHost(str('OLLAMA_HOST')) ?? 'http://127.0.0.1:11434',
      openaiApiKey: secretOf(str('OPENAI_API_KEY')),
      anthropicApiKey: secretOf(str('ANTHROPIC_API_KEY')),
      leaseMs: int('SUITE_BENCH_LEASE_MS', 10_000, 300, 600_000),
      pollMs: int('SUITE_BENCH_POLL_MS', 1000, 10, 60_000),
    },
    mcpUpstreams: loadMcpUpstreams(str('SUITE_MCP_UPSTREAMS'), (variable, message) => new ConfigError(variable, message)),
    mcpPolicy: loadMcpPolicy(str('SUITE_MCP_POLICY'), (variable, message) => new ConfigError(variable, message)),
    oauthTrustedIssuers: loadTrustedIssuers(str('SUITE_OAUTH_TRUSTED_ISSUERS'), (variable, message) => new ConfigError(variable, message)),
  });
}

/**
 * `OLLAMA_HOST` as Ollama itself reads it: `host`, `host:port` (port 11434 by default) or an
 * http(s) URL (port 80/443 by default). An address carrying credentials is refused: the configuration
 * keeps no secret of a provider, only whether it is configured.
 */
function ollamaHost(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const hasScheme = raw.includes('://');
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    throw new ConfigError('OLLAMA_HOST', 'must be host, host:port or an http(s):// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('OLLAMA_HOST', 'must be an http:// or https:// address');
  if (url.username !== '' || url.password !== '') throw new ConfigError('OLLAMA_HOST', 'must not carry credentials');
  const port = url.port !== '' ? url.port : hasScheme ? (url.protocol === 'https:' ? '443' : '80') : '11434';
  return `${url.protocol}//${url.hostname}:${port}`;
}

const secretOf = (value: string | undefined): Secret | undefined => (value === undefined ? undefined : new Secret(value));

/** An http(s) base URL without credentials, query or fragment, kept without a trailing slash. */
function baseUrl(variable: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, 'must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(variable, 'must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') throw new ConfigError(variable, 'must not carry credentials');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(variable, 'must not carry a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** `none` (nothing), `loopback` (127.0.0.0/8 and ::1), IPv4/IPv6 addresses and CIDR ranges. */
function outboundAllowList(raw: string | undefined): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const entries: string[] = [];
  for (const entry of raw.split(/[\s,]+/).filter((e) => e !== '')) {
    if (entry === 'none') continue;
    if (entry === 'loopback') {
      entries.push('127.0.0.0/8', '::1/128');
      continue;
    }
    const [network = '', bits, extra] = entry.split('/');
    const family = isIP(network);
    const maxBits = family === 4 ? 32 : 128;
    const badBits = bits !== undefined && (!/^[0-9]{1,3}$/.test(bits) || Number(bits) > maxBits);
    if (family === 0 || badBits || extra !== undefined) {
      throw new ConfigError('SUITE_OUTBOUND_ALLOW', `"${entry.slice(0, 60)}" is not an address or CIDR range (or none, loopback)`);
    }
    entries.push(entry);
  }
  return entries;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** A checkpoint origin doubles as a note key name: no spaces, no `+`, not empty (C2SP signed-note). */
function tlogOrigin(value: string | undefined): string {
  if (value === undefined) return 'agent-suite.local/executions/log';
  if (!/^[^\s+]{1,200}$/u.test(value))
    throw new ConfigError('SUITE_TLOG_ORIGIN', 'must be 1 to 200 characters with no spaces and no "+" (e.g. audit.example.com/executions/log)');
  return value;
}

/** The listeners' socket timeouts; Node refuses a headers timeout longer than the request timeout. */
function httpTimeouts(int: (name: string, fallback: number, min: number, max: number) => number) {
  const t = {
    headersMs: int('SUITE_HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestMs: int('SUITE_HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveMs: int('SUITE_HTTP_KEEPALIVE_TIMEOUT_MS', 10_000, 100, 600_000),
  };
  if (t.headersMs > t.requestMs) throw new ConfigError('SUITE_HTTP_HEADERS_TIMEOUT_MS', `must not exceed SUITE_HTTP_REQUEST_TIMEOUT_MS (${t.requestMs})`);
  return Object.freeze(t);
}

/** `SUITE_PUBLIC_URL`: an http(s) URL with no query or fragment; its trailing slash dropped. */
function publicUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('SUITE_PUBLIC_URL', 'must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new ConfigError('SUITE_PUBLIC_URL', 'must be an http(s) URL without query or fragment');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function mcpClientOf(clientId: string | undefined, clientSecret: string | undefined, scope: string | undefined): SuiteConfig['mcpClient'] {
  if (clientId === undefined) return undefined;
  return { clientId, ...(clientSecret !== undefined ? { clientSecret } : {}), ...(scope !== undefined ? { scope } : {}) };
}
