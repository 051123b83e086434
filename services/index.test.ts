import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.ts';
import { loadConfig } from './index.ts';

describe("the suite's configuration", () => {
  it("holds the shared sections and every service's own, frozen", () => {
    const c = loadConfig({ SUITE_TRUST_GATING: 'true', SCHEDULER_WORKERS: '4', SUITE_SIGNUP_ENABLED: '1' });
    expect(c).toMatchObject({
      host: '127.0.0.1',
      chainLeaseMs: 1500,
      tlogOrigin: 'agent-suite.local/executions/log',
      signupEnabled: true,
      oauthTrustedIssuers: undefined,
      scheduler: { workers: 4 },
      trust: { gating: true },
      connectors: {},
      mcpUpstreams: [],
      bench: { leaseMs: 10_000 },
    });
    expect(Object.isFrozen(c) && Object.isFrozen(c.trust) && Object.isFrozen(c.scheduler)).toBe(true);
  });

  it("stops at a bad value of a service's variable as at a shared one, naming it", () => {
    for (const [variable, value] of [
      ['SUITE_TOKEN_PORT', 'eighty'],
      ['SUITE_CHAIN_LEASE_RENEW_MS', '10'],
      ['SUITE_TRUST_GATE_THRESHOLD', '101'],
      ['SUITE_BENCH_POLL_MS', 'often'],
    ] as const) {
      expect(() => loadConfig({ [variable]: value }), variable).toThrow(expect.objectContaining({ variable }));
      expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    }
  });

  it("never shows a provider's key, whatever prints the whole configuration", () => {
    const key = 'sk-config-test-0123456789';
    const config = loadConfig({ OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key });
    expect(config.llm).toMatchObject({ openai: true, anthropic: true });
    for (const shown of [JSON.stringify(config), String(config.bench.openaiApiKey), inspect(config, { depth: 10 })]) expect(shown).not.toContain(key);
  });
});
