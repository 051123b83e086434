import { describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError, ensureStoredSecrets } from './index.ts';

const SECRET = 'x'.repeat(32);

describe('configuration', () => {
  it('defaults to loopback, the spec ports and an in-memory database', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.ports).toEqual({ token: 8081, scheduler: 8082, bench: 8083, connector: 8084, trust: 8085, dashboard: 3001 });
    expect(c.dbPath).toBeUndefined();
    expect(c.databaseUrl).toBeUndefined();
    expect(Object.isFrozen(c) && Object.isFrozen(c.ports)).toBe(true);
  });

  it("reads the embedded database's restart policy and the audit journal folder, with their defaults and bounds", () => {
    const d = loadConfig({});
    expect(d.dbRestart).toEqual({ attempts: 5, windowMs: 60_000 });
    expect(d.auditJournalDir).toBeUndefined();
    expect(loadConfig({ SUITE_DATA_DIR: '/srv/suite' }).auditJournalDir).toBe('/srv/suite/audit-journal');
    const c = loadConfig({
      SUITE_DATA_DIR: '/srv/suite',
      SUITE_AUDIT_JOURNAL_DIR: '/var/lib/journal',
      SUITE_DB_RESTART_ATTEMPTS: '2',
      SUITE_DB_RESTART_WINDOW_MS: '5000',
    });
    expect([c.auditJournalDir, c.dbRestart]).toEqual(['/var/lib/journal', { attempts: 2, windowMs: 5000 }]);
    expect(() => loadConfig({ SUITE_DB_RESTART_ATTEMPTS: '0' })).toThrow(/SUITE_DB_RESTART_ATTEMPTS/);
    expect(() => loadConfig({ SUITE_DB_RESTART_WINDOW_MS: 'soon' })).toThrow(/SUITE_DB_RESTART_WINDOW_MS/);
  });

  it('refuses to start in production without a signing secret of 32 characters', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', SUITE_HMAC_SECRET: 'short' })).toThrow(/SUITE_HMAC_SECRET/);
    expect(loadConfig({ NODE_ENV: 'production', SUITE_HMAC_SECRET: SECRET }).hmacSecrets).toEqual([SECRET]);
  });

  it('names the offending variable', () => {
    expect(() => loadConfig({ SUITE_TOKEN_PORT: 'eighty' })).toThrow(/SUITE_TOKEN_PORT/);
    expect(() => loadConfig({ SUITE_SCHEDULER_PORT: '70000' })).toThrow(/SUITE_SCHEDULER_PORT/);
    expect(() => loadConfig({ SUITE_DATABASE_URL: 'mysql://x' })).toThrow(/SUITE_DATABASE_URL/);
    expect(() => loadConfig({ SUITE_TRUST_URL: 'trust:8085' })).toThrow(/SUITE_TRUST_URL/);
    expect(() => loadConfig({ SUITE_TOKEN_URL: 'http://user:pw@token:8081' })).toThrow(/SUITE_TOKEN_URL/);
    expect(loadConfig({ SUITE_TRUST_URL: 'http://trust:8085/' }).listenerUrls).toEqual({ trust: 'http://trust:8085' });
    expect(() => loadConfig({ SUITE_ACCESS_LOG: 'maybe' })).toThrow(/SUITE_ACCESS_LOG/);
    expect(() => loadConfig({ SUITE_HMAC_PREVIOUS_SECRETS: 'short' })).toThrow(/SUITE_HMAC_PREVIOUS_SECRETS/);
  });

  it('reads the chain lease and its renewal, renewing every sixth of the lease unless told, and refuses a renewal over half the lease', () => {
    expect(loadConfig({})).toMatchObject({ chainLeaseMs: 1500, chainLeaseRenewMs: 250 });
    expect(loadConfig({ SUITE_NATS_URL: 'nats://127.0.0.1:4222' })).toMatchObject({ chainLeaseMs: 1500, chainLeaseRenewMs: 250 });
    expect(loadConfig({ SUITE_CHAIN_LEASE_MS: '3000' })).toMatchObject({ chainLeaseMs: 3000, chainLeaseRenewMs: 500 });
    expect(loadConfig({ SUITE_CHAIN_LEASE_MS: '1000', SUITE_CHAIN_LEASE_RENEW_MS: '100' })).toMatchObject({ chainLeaseMs: 1000, chainLeaseRenewMs: 100 });
    expect(() => loadConfig({ SUITE_CHAIN_LEASE_MS: '1000', SUITE_CHAIN_LEASE_RENEW_MS: '600' })).toThrow(/SUITE_CHAIN_LEASE_RENEW_MS/);
    expect(() => loadConfig({ SUITE_CHAIN_LEASE_RENEW_MS: '10' })).toThrow(/SUITE_CHAIN_LEASE_RENEW_MS/);
  });

  it("sets the listeners' socket timeouts, and refuses a headers timeout longer than the request timeout", () => {
    expect(loadConfig({}).httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 10_000 });
    expect(() => loadConfig({ SUITE_HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/SUITE_HTTP_HEADERS_TIMEOUT_MS/);
  });

  it('reads the outbound allow-list as addresses and ranges, and refuses anything else naming SUITE_OUTBOUND_ALLOW', () => {
    expect(loadConfig({}).outboundAllow).toBeUndefined();
    expect(loadConfig({ SUITE_OUTBOUND_ALLOW: 'none' }).outboundAllow).toEqual([]);
    expect(loadConfig({ SUITE_OUTBOUND_ALLOW: 'loopback, 10.0.0.0/8 fd00::/8,192.168.1.5' }).outboundAllow).toEqual([
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
      'fd00::/8',
      '192.168.1.5',
    ]);
    for (const bad of ['10.0.0.0/33', 'intranet.local', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => loadConfig({ SUITE_OUTBOUND_ALLOW: bad }), bad).toThrow(/SUITE_OUTBOUND_ALLOW/);
    }
  });

  it('lets environment variables win over stored first-run secrets', () => {
    const stored = { hmacSecret: 'y'.repeat(40), adminKey: 'stored-admin', tracePrivateKeyPem: '-----BEGIN PRIVATE KEY-----\n' };
    const fromStore = loadConfig({}, stored);
    expect(fromStore.hmacSecrets).toEqual([stored.hmacSecret]);
    expect(fromStore.adminKey).toBe('stored-admin');
    const fromEnv = loadConfig({ SUITE_HMAC_SECRET: SECRET, SUITE_ADMIN_KEY: 'env-admin' }, stored);
    expect(fromEnv.hmacSecrets).toEqual([SECRET]);
    expect(fromEnv.adminKey).toBe('env-admin');
  });

  it('puts the newest secret first and keeps previous ones for validation', () => {
    const older = 'o'.repeat(33);
    expect(loadConfig({ SUITE_HMAC_SECRET: SECRET, SUITE_HMAC_PREVIOUS_SECRETS: `${older}, ${SECRET}` }).hmacSecrets).toEqual([SECRET, older]);
  });

  it('places the embedded database in the data folder unless SUITE_DB_PATH says otherwise', () => {
    expect(loadConfig({ SUITE_DATA_DIR: '/d' }).dbPath).toBe('/d/database');
    expect(loadConfig({ SUITE_DATA_DIR: '/d', SUITE_DB_PATH: '/elsewhere' }).dbPath).toBe('/elsewhere');
    expect(loadConfig({ SUITE_DATA_DIR: '/d', SUITE_DATABASE_URL: 'postgres://h/db' }).dbPath).toBeUndefined();
  });

  it('takes the database pool size from SUITE_DATABASE_POOL_SIZE, else leaves it to storage, and refuses one out of range', () => {
    expect(loadConfig({ SUITE_DATABASE_POOL_SIZE: '6' }).databasePoolSize).toBe(6);
    expect(loadConfig({}).databasePoolSize).toBeUndefined();
    expect(() => loadConfig({ SUITE_DATABASE_POOL_SIZE: '0' })).toThrow(/SUITE_DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ SUITE_DATABASE_POOL_SIZE: 'many' })).toThrow(/SUITE_DATABASE_POOL_SIZE/);
  });

  it("keeps an earlier version's database where it was: <data folder>/pglite", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'suite-cfg-'));
    try {
      expect(loadConfig({ SUITE_DATA_DIR: dir }).dbPath).toBe(`${dir}/database`);
      await mkdir(join(dir, 'pglite'));
      expect(loadConfig({ SUITE_DATA_DIR: dir }).dbPath).toBe(`${dir}/pglite`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('generates first-run secrets once, owner-only, and reuses them afterwards', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'suite-cfg-')), 'data');
    const first = await ensureStoredSecrets(dir);
    const second = await ensureStoredSecrets(dir);
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.secrets).toEqual(first.secrets);
    expect(first.secrets.hmacSecret.length).toBeGreaterThanOrEqual(32);
    expect((await stat(join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readFile(join(dir, 'secrets.json'), 'utf8')).toContain('PRIVATE KEY');
  });
});

describe('trust configuration', () => {
  it('leaves gating off by default and names a bad trust variable', () => {
    expect(loadConfig({}).trust).toEqual({ gating: false, gateThreshold: 40, maxDepth: 16, maxFanOut: 32, stallMs: 300_000 });
    expect(loadConfig({ SUITE_TRUST_GATING: 'true', SUITE_TRUST_GATE_THRESHOLD: '60' }).trust).toMatchObject({ gating: true, gateThreshold: 60 });
    expect(() => loadConfig({ SUITE_TRUST_GATE_THRESHOLD: '101' })).toThrow(/SUITE_TRUST_GATE_THRESHOLD/);
    expect(() => loadConfig({ SUITE_TRUST_GATING: 'on' })).toThrow(/SUITE_TRUST_GATING/);
    expect(() => loadConfig({ SUITE_TRUST_STALL_MS: '10' })).toThrow(/SUITE_TRUST_STALL_MS/);
    expect(() => loadConfig({ SUITE_TRUST_MAX_FANOUT: '0' })).toThrow(/SUITE_TRUST_MAX_FANOUT/);
  });
});

describe('bus configuration', () => {
  it('reads the log format (json or pretty; unset: decided by the terminal) and NO_COLOR', () => {
    expect(loadConfig({})).toMatchObject({ logFormat: undefined, color: true });
    expect(loadConfig({ SUITE_LOG_FORMAT: 'pretty', NO_COLOR: '1' })).toMatchObject({ logFormat: 'pretty', color: false });
    expect(loadConfig({ SUITE_LOG_FORMAT: 'json', NO_COLOR: '' })).toMatchObject({ logFormat: 'json', color: true });
    expect(() => loadConfig({ SUITE_LOG_FORMAT: 'text' })).toThrow(/SUITE_LOG_FORMAT: must be json or pretty/);
  });

  it('accepts a comma-separated NATS cluster and a namespace', () => {
    const c = loadConfig({ SUITE_NATS_URL: 'nats://a:4222, nats://b:4222', SUITE_BUS_NAMESPACE: 'prod.eu' });
    expect(c.natsServers).toEqual(['nats://a:4222', 'nats://b:4222']);
    expect(c.busNamespace).toBe('prod.eu');
    expect(() => loadConfig({ SUITE_NATS_URL: 'nats://a:4222,http://b' })).toThrow(/SUITE_NATS_URL/);
    expect(() => loadConfig({ SUITE_BUS_NAMESPACE: 'a b' })).toThrow(/SUITE_BUS_NAMESPACE/);
  });
});

describe('tracing configuration', () => {
  it('exports nothing by default, and samples parent-based when it does', () => {
    const t = loadConfig({}).tracing;
    expect(t).toMatchObject({
      disabled: false,
      serviceName: 'agent-authority-suite',
      otlpTracesEndpoint: undefined,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  it('appends the traces path to the base endpoint and takes the traces endpoint as given', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.otlpTracesEndpoint).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c/otlp' }).tracing.otlpTracesEndpoint).toBe('https://c/otlp/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b/custom' }).tracing.otlpTracesEndpoint).toBe(
      'http://b/custom',
    );
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing.otlpTracesEndpoint).toBeUndefined();
  });

  it('reads collector headers, percent-decoded, the traces ones first', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20k1, x-tenant = t' }).tracing.otlpHeaders).toEqual({
      authorization: 'Bearer k1',
      'x-tenant': 't',
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=2' }).tracing.otlpHeaders).toEqual({ b: '2' });
  });

  it('names the offending variable, and never echoes a header value', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadConfig({ OTEL_SDK_DISABLED: 'yes' })).toThrow(/OTEL_SDK_DISABLED/);
    expect(() => loadConfig({ SUITE_TRACE_BACKGROUND_RATIO: '2' })).toThrow(/SUITE_TRACE_BACKGROUND_RATIO/);
    expect(() => loadConfig({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
    expect(() => loadConfig({ SUITE_METRICS_PORT: '70000' })).toThrow(/SUITE_METRICS_PORT/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-key' })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=%E0%A4%A' })).toThrow(
      expect.objectContaining({
        variable: 'OTEL_EXPORTER_OTLP_HEADERS',
        message: expect.not.stringContaining('%E0'),
      }),
    );
  });

  it('reads a sampling ratio and the switch that turns the SDK off', () => {
    expect(loadConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(loadConfig({}).tracing).toMatchObject({ backgroundRatio: 0, exportDelayMs: 5000 });
    expect(loadConfig({ SUITE_TRACE_BACKGROUND_RATIO: '0.01', OTEL_BSP_SCHEDULE_DELAY: '200' }).tracing).toMatchObject({
      backgroundRatio: 0.01,
      exportDelayMs: 200,
    });
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ SUITE_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ OTEL_SDK_DISABLED: 'TRUE' }).tracing.disabled).toBe(true);
  });
});

describe('benchmark settings', () => {
  it("defaults the providers' base URLs and the runner's lease and poll", () => {
    expect(loadConfig({}).bench).toMatchObject({
      openaiBaseUrl: 'https://api.openai.com/v1',
      anthropicBaseUrl: 'https://api.anthropic.com',
      ollamaBaseUrl: 'http://127.0.0.1:11434',
      openaiApiKey: undefined,
      anthropicApiKey: undefined,
      leaseMs: 10_000,
      pollMs: 1000,
    });
    expect(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1/', OLLAMA_HOST: 'gpu-box' }).bench).toMatchObject({
      openaiBaseUrl: 'http://127.0.0.1:8000/v1',
      ollamaBaseUrl: 'http://gpu-box:11434',
    });
  });

  it('holds the keys as secrets that no JSON, string or inspection of the configuration shows', async () => {
    const key = 'sk-config-test-0123456789';
    const config = loadConfig({ OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key });
    expect(config.bench.openaiApiKey?.reveal()).toBe(key);
    const { inspect } = await import('node:util');
    for (const shown of [JSON.stringify(config), String(config.bench.openaiApiKey), inspect(config, { depth: 10 })]) expect(shown).not.toContain(key);
  });

  it('names the variable of a bad base URL or a lease out of range', () => {
    expect(() => loadConfig({ OPENAI_BASE_URL: 'api.openai.com' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadConfig({ ANTHROPIC_BASE_URL: 'https://user:pw@api.anthropic.com' })).toThrow(/ANTHROPIC_BASE_URL/);
    expect(() => loadConfig({ OPENAI_BASE_URL: 'https://x/v1?key=1' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadConfig({ SUITE_BENCH_LEASE_MS: '10' })).toThrow(/SUITE_BENCH_LEASE_MS/);
    expect(() => loadConfig({ SUITE_BENCH_POLL_MS: 'often' })).toThrow(/SUITE_BENCH_POLL_MS/);
  });
});
