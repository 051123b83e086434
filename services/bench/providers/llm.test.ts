import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../../config/index.ts';
import { createOutboundGuard, outboundPolicy, type OutboundGuard } from '../../../actors/outbound/index.ts';
import { startAnthropicFake, startOllamaFake, startOpenAiFake, type FakeOptions, type FakeServer } from '../../../testing/llm-fakes.ts';
import { anthropicTarget, ollamaTarget, openaiTarget, type LlmTargetOptions } from './llm.ts';
import type { Target } from './types.ts';

let guard: OutboundGuard;
beforeAll(() => {
  guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });
});
afterAll(() => guard.close());
const fakes: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

const KEY = 'sk-test-0123456789abcdef';
const providers = [
  { name: 'openai', start: startOpenAiFake, target: openaiTarget, model: 'gpt-4o-mini' },
  { name: 'anthropic', start: startAnthropicFake, target: anthropicTarget, model: 'claude-3-5-haiku-latest' },
  { name: 'ollama', start: startOllamaFake, target: ollamaTarget, model: 'llama3.2' },
] as const;

async function targetOn(p: (typeof providers)[number], fake: FakeOptions, o: Partial<LlmTargetOptions> = {}): Promise<{ target: Target; server: FakeServer }> {
  const server = await p.start(fake);
  fakes.push(server);
  const target = p.target({
    base: new URL(server.base),
    model: p.model,
    prompt: 'Say hello.',
    maxTokens: 32,
    apiKey: undefined,
    dispatcher: guard.dispatcher,
    timeoutMs: 10_000,
    ...o,
  });
  return { target, server };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const within = (measured: number, expected: number) => Math.abs(measured - expected) <= Math.max(expected * 0.1, 2);

describe.each(providers)('the $name provider', (p) => {
  // The server's timers are floors (late on a busy machine): the measurement is held to the pacing
  // the server really kept, which it records; and that pacing to what it was told, loosely.
  it("measures time to first token and inter-token latency within 10% (or 2 ms) of the server's pacing", async () => {
    const { target, server } = await targetOn(p, { ttftMs: 120, itlMs: 30, tokens: 8 });
    // Five calls, their medians: one call descheduled on a loaded machine does not decide.
    const ttfts: number[] = [];
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await target.call(AbortSignal.timeout(10_000));
      expect(r).toMatchObject({ ok: true, status: 200, outputTokens: 8 });
      ttfts.push(r.ttftMs!);
      gaps.push(...r.gapsMs!);
      expect(r.gapsMs).toHaveLength(7);
      expect(r.latencyMs).toBeGreaterThanOrEqual(r.ttftMs! + 7 * 29);
    }
    const sentTtft = median(server.pacing.map((q) => q.ttftMs));
    const sentGap = median(server.pacing.flatMap((q) => q.gapsMs));
    expect(within(median(ttfts), sentTtft), `ttft ${median(ttfts)} against ${sentTtft} sent`).toBe(true);
    expect(within(median(gaps), sentGap), `itl ${median(gaps)} against ${sentGap} sent`).toBe(true);
    expect(sentTtft).toBeGreaterThanOrEqual(119);
    expect(sentGap).toBeGreaterThanOrEqual(29);
  });

  it('calls a stream that ends without the end signal a protocol error, and one with an error event a stream error', async () => {
    const cut = await targetOn(p, { ttftMs: 5, itlMs: 1, tokens: 6, breakAfter: { tokens: 3, how: 'cut' } });
    expect(await cut.target.call(AbortSignal.timeout(5000))).toMatchObject({ ok: false, errorKind: 'protocol' });
    const failed = await targetOn(p, { ttftMs: 5, itlMs: 1, tokens: 6, breakAfter: { tokens: 3, how: 'error' } });
    const r = await failed.target.call(AbortSignal.timeout(5000));
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe(p.name === 'anthropic' ? 'overloaded' : 'stream_error');
  });

  it('sends what the API requires and the prompt', async () => {
    const { target, server } = await targetOn(p, { ttftMs: 1, itlMs: 1, tokens: 2 });
    await target.call(AbortSignal.timeout(5000));
    const sent = server.requests[0]!;
    expect(sent.body).toMatchObject({ model: p.model, messages: [{ role: 'user', content: 'Say hello.' }], stream: true });
  });
});

describe("error kinds from each provider's error answers", () => {
  it("reads OpenAI's 429 as rate_limited and a wrong key as auth", async () => {
    expect(await (await targetOn(providers[0], { status: 429 })).target.call(AbortSignal.timeout(5000))).toMatchObject({
      ok: false,
      status: 429,
      errorKind: 'rate_limited',
    });
    expect(await (await targetOn(providers[0], { apiKey: KEY }, { apiKey: new Secret('sk-wrong') })).target.call(AbortSignal.timeout(5000))).toMatchObject({
      ok: false,
      status: 401,
      errorKind: 'auth',
    });
  });

  it("reads Anthropic's 529 overloaded_error as overloaded", async () => {
    expect(await (await targetOn(providers[1], { status: 529 })).target.call(AbortSignal.timeout(5000))).toMatchObject({
      ok: false,
      status: 529,
      errorKind: 'overloaded',
    });
  });

  it("reads Ollama's unknown model as not_found", async () => {
    const { target } = await targetOn(providers[2], {}, { model: 'no-such-model' });
    expect(await target.call(AbortSignal.timeout(5000))).toMatchObject({ ok: false, status: 404, errorKind: 'not_found' });
  });
});

describe('API keys', () => {
  it('sends the OpenAI key as a bearer token and the Anthropic key as x-api-key', async () => {
    const openai = await targetOn(providers[0], { apiKey: KEY, ttftMs: 1, itlMs: 1 }, { apiKey: new Secret(KEY) });
    expect((await openai.target.call(AbortSignal.timeout(5000))).ok).toBe(true);
    const anthropic = await targetOn(providers[1], { apiKey: KEY, ttftMs: 1, itlMs: 1 }, { apiKey: new Secret(KEY) });
    expect((await anthropic.target.call(AbortSignal.timeout(5000))).ok).toBe(true);
    expect(anthropic.server.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('keeps a key out of JSON, string conversion and inspection', () => {
    const secret = new Secret(KEY);
    expect(JSON.stringify({ secret })).not.toContain(KEY);
    expect(String(secret)).not.toContain(KEY);
    expect(inspect({ secret })).not.toContain(KEY);
  });
});
