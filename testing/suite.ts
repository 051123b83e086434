import { randomBytes } from 'node:crypto';
import { pino, type DestinationStream } from 'pino';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SERVICES, PORT_VARIABLES, type ServiceName } from '../config/index.ts';
import { loadConfig, type SuiteConfig } from '../services/index.ts';
import { mintToken } from '../actors/capability/index.ts';
import { createHmacKeyRing } from '../core/capability/index.ts';
import { startSuite, type RunningSuite } from '../cli/runtime.ts';
import { parseRoles } from '../cli/roles.ts';

/**
 * The real suite for tests: every role in this process (or the roles asked for), on ephemeral
 * ports, in-memory PGlite unless the environment given says otherwise. Nothing is mocked.
 */
export interface TestSuite {
  readonly suite: RunningSuite;
  readonly config: SuiteConfig;
  readonly adminKey: string;
  url(service: ServiceName, path?: string): string;
  /** Mint a token through the real API with the admin key. */
  mint(scope: string[], body?: Record<string, unknown>): Promise<{ token: string; jti: string; exp: number }>;
  /** A correctly signed token whose lifetime is over (minted with the suite's own secret, in the past). */
  expiredToken(scope: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface TestSuiteOptions {
  /** Record spans into these (a `SimpleSpanProcessor` over an `InMemorySpanExporter`). */
  spanProcessors?: readonly SpanProcessor[];
  /** Where the suite's log lines go (default stdout), to count or read them. */
  logDestination?: DestinationStream;
}

export async function startTestSuite(env: Record<string, string> = {}, roles: string[] = [], options: TestSuiteOptions = {}): Promise<TestSuite> {
  const adminKey = `test-admin-${randomBytes(8).toString('hex')}`;
  const ports = Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0']));
  const config = loadConfig({
    SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
    SUITE_ADMIN_KEY: adminKey,
    SUITE_LOG_LEVEL: 'silent',
    ...ports,
    ...env,
  });
  const logger = options.logDestination ? pino({ level: config.logLevel }, options.logDestination) : pino({ level: config.logLevel });
  const suite = await startSuite(config, parseRoles(roles), logger, options);
  const portOf = (service: ServiceName) => {
    const edge = suite.edges.find((e) => e.service === service);
    if (!edge) throw new Error(`no ${service} edge in this test suite`);
    return edge.port;
  };
  const url = (service: ServiceName, path = '') => `http://127.0.0.1:${portOf(service)}${path}`;
  return {
    suite,
    config,
    adminKey,
    url,
    async mint(scope, body = {}) {
      const res = await fetch(url('token', '/auth/token'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-suite-admin-key': adminKey },
        body: JSON.stringify({ sub: 'test-agent', scope, ...body }),
      });
      if (res.status !== 200) throw new Error(`mint failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { token: string; jti: string; exp: number };
    },
    async expiredToken(scope) {
      const ring = await createHmacKeyRing(config.hmacSecrets);
      const minted = await mintToken(ring, { sub: 'test-agent', scope, lifetimeSeconds: 60, now: Math.floor(Date.now() / 1000) - 120 });
      return minted.token;
    },
    stop: () => suite.stop(),
  };
}
