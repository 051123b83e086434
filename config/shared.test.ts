import { describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSharedConfig, ConfigError, ensureStoredSecrets } from './index.ts';

const SECRET = 'x'.repeat(32);

describe('configuration', () => {
  it('defaults to loopback, the spec ports and an in-memory database', () => {
    const c = loadSharedConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.ports).toEqual({ token: 8081, scheduler: 8082, bench: 8083, connector: 8084, trust: 8085, dashboard: 3001 });
    expect(c.dbPath).toBeUndefined();
    expect(c.databaseUrl).toBeUndefined();
    expect(Object.isFrozen(c) && Object.isFrozen(c.ports)).toBe(true);
  });

  it("reads the embedded database's restart policy and the audit journal folder, with their defaults and bounds", () => {
    const d = loadSharedConfig({});
    expect(d.dbRestart).toEqual({ attempts: 5, windowMs: 60_000 });
    expect(d.auditJournalDir).toBeUndefined();
    expect(loadSharedConfig({ SUITE_DATA_DIR: '/srv/suite' }).auditJournalDir).toBe('/srv/suite/audit-journal');
    const c = loadSharedConfig({
      SUITE_DATA_DIR: '/srv/suite',
      SUITE_AUDIT_JOURNAL_DIR: '/var/lib/journal',
      SUITE_DB_RESTART_ATTEMPTS: '2',
      SUITE_DB_RESTART_WINDOW_MS: '5000',
    });
    expect([c.auditJournalDir, c.dbRestart]).toEqual(['/var/lib/journal', { attempts: 2, windowMs: 5000 }]);
    expect(() => loadSharedConfig({ SUITE_DB_RESTART_ATTEMPTS: '0' })).toThrow(/SUITE_DB_RESTART_ATTEMPTS/);
    expect(() => loadSharedConfig({ SUITE_DB_RESTART_WINDOW_MS: 'soon' })).toThrow(/SUITE_DB_RESTART_WINDOW_MS/);
  });

  it('refuses to start in production without a signing secret of 32 characters', () => {
    expect(() => loadSharedConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadSharedConfig({ NODE_ENV: 'production', SUITE_HMAC_SECRET: 'short' })).toThrow(/SUITE_HMAC_SECRET/);
    expect(loadSharedConfig({ NODE_ENV: 'production', SUITE_HMAC_SECRET: SECRET }).hmacSecrets).toEqual([SECRET]);
  });

  it('names the offending variable', () => {
    expect(() => loadSharedConfig({ SUITE_TOKEN_PORT: 'eighty' })).toThrow(/SUITE_TOKEN_PORT/);
    expect(() => loadSharedConfig({ SUITE_SCHEDULER_PORT: '70000' })).toThrow(/SUITE_SCHEDULER_PORT/);
    expect(() => loadSharedConfig({ SUITE_DATABASE_URL: 'mysql://x' })).toThrow(/SUITE_DATABASE_URL/);
    expect(() => loadSharedConfig({ SUITE_TRUST_URL: 'trust:8085' })).toThrow(/SUITE_TRUST_URL/);
    expect(() => loadSharedConfig({ SUITE_TOKEN_URL: 'http://user:pw@token:8081' })).toThrow(/SUITE_TOKEN_URL/);
    expect(loadSharedConfig({ SUITE_TRUST_URL: 'http://trust:8085/' }).listenerUrls).toEqual({ trust: 'http://trust:8085' });
    expect(() => loadSharedConfig({ SUITE_ACCESS_LOG: 'maybe' })).toThrow(/SUITE_ACCESS_LOG/);
    expect(() => loadSharedConfig({ SUITE_HMAC_PREVIOUS_SECRETS: 'short' })).toThrow(/SUITE_HMAC_PREVIOUS_SECRETS/);
  });

  it("sets the listeners' socket timeouts, and refuses a headers timeout longer than the request timeout", () => {
    expect(loadSharedConfig({}).httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 10_000 });
    expect(() => loadSharedConfig({ SUITE_HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/SUITE_HTTP_HEADERS_TIMEOUT_MS/);
  });

  it('reads the outbound allow-list as addresses and ranges, and refuses anything else naming SUITE_OUTBOUND_ALLOW', () => {
    expect(loadSharedConfig({}).outboundAllow).toBeUndefined();
    expect(loadSharedConfig({ SUITE_OUTBOUND_ALLOW: 'none' }).outboundAllow).toEqual([]);
    expect(loadSharedConfig({ SUITE_OUTBOUND_ALLOW: 'loopback, 10.0.0.0/8 fd00::/8,192.168.1.5' }).outboundAllow).toEqual([
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
      'fd00::/8',
      '192.168.1.5',
    ]);
    for (const bad of ['10.0.0.0/33', 'intranet.local', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => loadSharedConfig({ SUITE_OUTBOUND_ALLOW: bad }), bad).toThrow(/SUITE_OUTBOUND_ALLOW/);
    }
  });

  it('lets environment variables win over stored first-run secrets', () => {
    const stored = { hmacSecret: 'y'.repeat(40), adminKey: 'stored-admin', tracePrivateKeyPem: '-----BEGIN PRIVATE KEY-----\n' };
    const fromStore = loadSharedConfig({}, stored);
    expect(fromStore.hmacSecrets).toEqual([stored.hmacSecret]);
    expect(fromStore.adminKey).toBe('stored-admin');
    const fromEnv = loadSharedConfig({ SUITE_HMAC_SECRET: SECRET, SUITE_ADMIN_KEY: 'env-admin' }, stored);
    expect(fromEnv.hmacSecrets).toEqual([SECRET]);
    expect(fromEnv.adminKey).toBe('env-admin');
  });

  it('puts the newest secret first and keeps previous ones for validation', () => {
    const older = 'o'.repeat(33);
    expect(loadSharedConfig({ SUITE_HMAC_SECRET: SECRET, SUITE_HMAC_PREVIOUS_SECRETS: `${older}, ${SECRET}` }).hmacSecrets).toEqual([SECRET, older]);
  });

  it('places the embedded database in the data folder unless SUITE_DB_PATH says otherwise', () => {
    expect(loadSharedConfig({ SUITE_DATA_DIR: '/d' }).dbPath).toBe('/d/database');
    expect(loadSharedConfig({ SUITE_DATA_DIR: '/d', SUITE_DB_PATH: '/elsewhere' }).dbPath).toBe('/elsewhere');
    expect(loadSharedConfig({ SUITE_DATA_DIR: '/d', SUITE_DATABASE_URL: 'postgres://h/db' }).dbPath).toBeUndefined();
  });

  it('takes the database pool size from SUITE_DATABASE_POOL_SIZE, else leaves it to storage, and refuses one out of range', () => {
    expect(loadSharedConfig({ SUITE_DATABASE_POOL_SIZE: '6' }).databasePoolSize).toBe(6);
    expect(loadSharedConfig({}).databasePoolSize).toBeUndefined();
    expect(() => loadSharedConfig({ SUITE_DATABASE_POOL_SIZE: '0' })).toThrow(/SUITE_DATABASE_POOL_SIZE/);
    expect(() => loadSharedConfig({ SUITE_DATABASE_POOL_SIZE: 'many' })).toThrow(/SUITE_DATABASE_POOL_SIZE/);
  });

  it("keeps an earlier version's database where it was: <data folder>/pglite", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'suite-cfg-'));
    try {
      expect(loadSharedConfig({ SUITE_DATA_DIR: dir }).dbPath).toBe(`${dir}/database`);
      await mkdir(join(dir, 'pglite'));
      expect(loadSharedConfig({ SUITE_DATA_DIR: dir }).dbPath).toBe(`${dir}/pglite`);
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

describe('bus configuration', () => {
  it('reads the log format (json or pretty; unset: decided by the terminal) and NO_COLOR', () => {
    expect(loadSharedConfig({})).toMatchObject({ logFormat: undefined, color: true });
    expect(loadSharedConfig({ SUITE_LOG_FORMAT: 'pretty', NO_COLOR: '1' })).toMatchObject({ logFormat: 'pretty', color: false });
    expect(loadSharedConfig({ SUITE_LOG_FORMAT: 'json', NO_COLOR: '' })).toMatchObject({ logFormat: 'json', color: true });
    expect(() => loadSharedConfig({ SUITE_LOG_FORMAT: 'text' })).toThrow(/SUITE_LOG_FORMAT: must be json or pretty/);
  });

  it('accepts a comma-separated NATS cluster and a namespace', () => {
    const c = loadSharedConfig({ SUITE_NATS_URL: 'nats://a:4222, nats://b:4222', SUITE_BUS_NAMESPACE: 'prod.eu' });
    expect(c.natsServers).toEqual(['nats://a:4222', 'nats://b:4222']);
    expect(c.busNamespace).toBe('prod.eu');
    expect(() => loadSharedConfig({ SUITE_NATS_URL: 'nats://a:4222,http://b' })).toThrow(/SUITE_NATS_URL/);
    expect(() => loadSharedConfig({ SUITE_BUS_NAMESPACE: 'a b' })).toThrow(/SUITE_BUS_NAMESPACE/);
  });
});

describe('tracing configuration', () => {
  it('exports nothing by default, and samples parent-based when it does', () => {
    const t = loadSharedConfig({}).tracing;
    expect(t).toMatchObject({
      disabled: false,
      serviceName: 'agent-authority-suite',
      otlpTracesEndpoint: undefined,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  it('appends the traces path to the base endpoint and takes the traces endpoint as given', () => {
    expect(loadSharedConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.otlpTracesEndpoint).toBe('http://collector:4318/v1/traces');
    expect(loadSharedConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c/otlp' }).tracing.otlpTracesEndpoint).toBe('https://c/otlp/v1/traces');
    expect(
      loadSharedConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b/custom' }).tracing.otlpTracesEndpoint,
    ).toBe('http://b/custom');
    expect(loadSharedConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing.otlpTracesEndpoint).toBeUndefined();
  });

  it('reads collector headers, percent-decoded, the traces ones first', () => {
    expect(loadSharedConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20k1, x-tenant = t' }).tracing.otlpHeaders).toEqual({
      authorization: 'Bearer k1',
      'x-tenant': 't',
    });
    expect(loadSharedConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=2' }).tracing.otlpHeaders).toEqual({ b: '2' });
  });

  it('names the offending variable, and never echoes a header value', () => {
    expect(() => loadSharedConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadSharedConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(() => loadSharedConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => loadSharedConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadSharedConfig({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadSharedConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadSharedConfig({ OTEL_SDK_DISABLED: 'yes' })).toThrow(/OTEL_SDK_DISABLED/);
    expect(() => loadSharedConfig({ SUITE_TRACE_BACKGROUND_RATIO: '2' })).toThrow(/SUITE_TRACE_BACKGROUND_RATIO/);
    expect(() => loadSharedConfig({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
    expect(() => loadSharedConfig({ SUITE_METRICS_PORT: '70000' })).toThrow(/SUITE_METRICS_PORT/);
    expect(() => loadSharedConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-key' })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(() => loadSharedConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=%E0%A4%A' })).toThrow(
      expect.objectContaining({
        variable: 'OTEL_EXPORTER_OTLP_HEADERS',
        message: expect.not.stringContaining('%E0'),
      }),
    );
  });

  it('reads a sampling ratio and the switch that turns the SDK off', () => {
    expect(loadSharedConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(loadSharedConfig({}).tracing).toMatchObject({ backgroundRatio: 0, exportDelayMs: 5000 });
    expect(loadSharedConfig({ SUITE_TRACE_BACKGROUND_RATIO: '0.01', OTEL_BSP_SCHEDULE_DELAY: '200' }).tracing).toMatchObject({
      backgroundRatio: 0.01,
      exportDelayMs: 200,
    });
    expect(loadSharedConfig({}).metricsPort).toBeUndefined();
    expect(loadSharedConfig({ SUITE_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadSharedConfig({ OTEL_SDK_DISABLED: 'TRUE' }).tracing.disabled).toBe(true);
  });
});
