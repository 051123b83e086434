import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { readSection } from '../../config/index.ts';
import { benchConfig } from './config.ts';

const load = (env: Record<string, string>) => readSection(benchConfig, env);

describe('benchmark settings', () => {
  it("defaults the providers' base URLs and the runner's lease and poll", () => {
    expect(load({}).bench).toMatchObject({
      openaiBaseUrl: 'https://api.openai.com/v1',
      anthropicBaseUrl: 'https://api.anthropic.com',
      ollamaBaseUrl: 'http://127.0.0.1:11434',
      openaiApiKey: undefined,
      anthropicApiKey: undefined,
      leaseMs: 10_000,
      pollMs: 1000,
    });
    expect(load({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1/', OLLAMA_HOST: 'gpu-box' }).bench).toMatchObject({
      openaiBaseUrl: 'http://127.0.0.1:8000/v1',
      ollamaBaseUrl: 'http://gpu-box:11434',
    });
  });

  it('holds the keys as secrets that no JSON, string or inspection of the configuration shows', () => {
    const key = 'sk-config-test-0123456789';
    const config = load({ OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key });
    expect(config.bench.openaiApiKey?.reveal()).toBe(key);
    for (const shown of [JSON.stringify(config), String(config.bench.openaiApiKey), inspect(config, { depth: 10 })]) expect(shown).not.toContain(key);
  });

  it('names the variable of a bad base URL or a lease out of range', () => {
    expect(() => load({ OPENAI_BASE_URL: 'api.openai.com' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => load({ ANTHROPIC_BASE_URL: 'https://user:pw@api.anthropic.com' })).toThrow(/ANTHROPIC_BASE_URL/);
    expect(() => load({ OPENAI_BASE_URL: 'https://x/v1?key=1' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => load({ SUITE_BENCH_LEASE_MS: '10' })).toThrow(/SUITE_BENCH_LEASE_MS/);
    expect(() => load({ SUITE_BENCH_POLL_MS: 'often' })).toThrow(/SUITE_BENCH_POLL_MS/);
  });
});
