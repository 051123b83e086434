import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call as callSuite, createTenant, type Call } from '../../testing/tenancy.ts';
import { startTargetServer, type TargetServer } from '../../testing/target-server.ts';
import { startOpenAiFake, startOllamaFake, type FakeServer } from '../../testing/llm-fakes.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
let runner: string;
let reader: string;
let fast: TargetServer;
let slow: TargetServer;
let openai: FakeServer;
let elsewhere: FakeServer;
let ollama: FakeServer;
const KEY = 'sk-suite-key-never-shown-0123456789';
beforeAll(async () => {
  openai = await startOpenAiFake({ apiKey: KEY, ttftMs: 20, itlMs: 5, tokens: 6 });
  elsewhere = await startOpenAiFake({ ttftMs: 5, itlMs: 1, tokens: 3 });
  ollama = await startOllamaFake({ ttftMs: 10, itlMs: 2, tokens: 4 });
  t = await startTestSuite({ SUITE_BENCH_POLL_MS: '50', OPENAI_BASE_URL: openai.base, OPENAI_API_KEY: KEY, OLLAMA_HOST: ollama.base });
  runner = (await t.mint(['bench:run', 'bench:read'])).token;
  reader = (await t.mint(['bench:read'])).token;
  // Delays long beside timer and scheduling jitter (a few ms on a busy machine), so two runs of one
  // server differ by noise only: the verdict's smallest change (5% of the mean) is over 1 ms here.
  fast = await startTargetServer({ delayMs: 25 });
  slow = await startTargetServer({ delayMs: 50 });
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await fast?.close();
  await slow?.close();
  await Promise.all([openai, elsewhere, ollama].map((f) => f?.close()));
});

const call = (path: string, o: Call = {}) => callSuite(t, path, { service: 'bench', ...o });
const run = (body: unknown, o: Call = {}) => call('/run', { token: runner, body, ...o });

async function finished(jobId: string, o: Call = {}, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(`/run/${jobId}`, { token: reader, ...o });
    if (r.body.status === 'succeeded' || r.body.status === 'failed') return r.body;
    if (Date.now() > until) throw new Error(`job ${jobId} still ${r.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('POST /run validation', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown provider', { provider: 'bard', url: 'http://127.0.0.1:1/' }, 'provider'],
    ['provider http without url', { provider: 'http' }, 'url'],
    ['an LLM provider without model', { provider: 'openai' }, 'model'],
    ['testRuns above 500', { provider: 'http', url: 'http://127.0.0.1:1/', testRuns: 501 }, 'testRuns'],
    ['testRuns of 0', { provider: 'http', url: 'http://127.0.0.1:1/', testRuns: 0 }, 'testRuns'],
    ['concurrency above 32', { provider: 'http', url: 'http://127.0.0.1:1/', concurrency: 33 }, 'concurrency'],
    ['a negative warmupRuns', { provider: 'http', url: 'http://127.0.0.1:1/', warmupRuns: -1 }, 'warmupRuns'],
    ['testRuns as a string', { provider: 'http', url: 'http://127.0.0.1:1/', testRuns: '10' }, 'testRuns'],
    ['testRuns as a fraction', { provider: 'http', url: 'http://127.0.0.1:1/', testRuns: 2.5 }, 'testRuns'],
    ['a url that is not a URL', { provider: 'http', url: 'not a url' }, 'url'],
    ['a url with another scheme', { provider: 'http', url: 'file:///etc/passwd' }, 'url'],
    ['a url with credentials', { provider: 'http', url: 'http://user:pw@127.0.0.1:1/' }, 'url'],
    ['a name too long', { provider: 'http', url: 'http://127.0.0.1:1/', name: 'x'.repeat(201) }, 'name'],
    ['an unknown field', { provider: 'http', url: 'http://127.0.0.1:1/', color: 'red' }, ''],
    ['headers on an LLM provider', { provider: 'ollama', model: 'm', headers: { a: 'b' } }, 'headers'],
    ['a NUL in the body', { provider: 'http', url: 'http://127.0.0.1:1/', body: 'a\u0000b' }, 'body'],
    ['a lone surrogate in the body', { provider: 'http', url: 'http://127.0.0.1:1/', body: 'a\ud800b' }, 'body'],
    ['a lone surrogate in the url', { provider: 'http', url: 'http://127.0.0.1:1/\udc00' }, 'url'],
    ['a CR in a header value', { provider: 'http', url: 'http://127.0.0.1:1/', headers: { 'x-a': 'a\rb' } }, 'headers'],
    ['a header name with a space', { provider: 'http', url: 'http://127.0.0.1:1/', headers: { 'x a': 'b' } }, 'headers'],
    ['a prompt on provider http', { provider: 'http', url: 'http://127.0.0.1:1/', prompt: 'hi' }, 'prompt'],
  ];
  it.each(cases)('answers 400 INVALID_REQUEST naming the field for %s, storing and counting nothing', async (_, body, field) => {
    const tenant = await createTenant(t);
    const r = await run(body, { tenantKey: tenant.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_REQUEST');
    expect(r.body.error.message).toContain(field);
    const usage = await callSuite(t, '/usage', { tenantKey: tenant.apiKey });
    expect(usage.body.usage.benchmarkRuns).toBe(0);
    const history = await call('/history', { token: reader, tenantKey: tenant.apiKey });
    expect(history.body.total).toBe(0);
  });

  it('refuses a body that is not an object', async () => {
    expect((await run([1, 2])).status).toBe(400);
  });

  it('answers 400 to hostile bodies: a __proto__ key, deep nesting, a 100 KB name, broken JSON', async () => {
    const url = 'http://127.0.0.1:1/';
    const deep = JSON.parse(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`);
    const bodies: unknown[] = [
      `{"provider":"http","url":"${url}","__proto__":{"testRuns":1}}`,
      `{"provider":"http","url":"${url}","headers":{"__proto__":"x"}}`,
      { provider: 'http', url, body: deep },
      { provider: 'http', url, name: 'x'.repeat(100_000) },
      '{"provider":"http",',
    ];
    for (const body of bodies) {
      const r = await run(body);
      expect(r.status, r.text.slice(0, 200)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
    expect((await call('/history', { token: reader })).body.runs.every((x: { target: string }) => x.target !== url)).toBe(true);
    expect((await call('/run/%00', { token: reader })).status).toBe(400);
    expect((await call('/history?limit=abc', { token: reader })).status).toBe(400);
    expect((await call('/compare?baseline=%00&candidate=x', { token: reader })).status).toBe(400);
  });
});

describe('an http run', () => {
  let jobId: string;
  it('answers 202 with the job id, its state and an estimate, and counts one benchmark run', async () => {
    const tenant = await createTenant(t);
    const before = fast.hits();
    const r = await run({ provider: 'http', url: fast.url, name: 'fast-1', testRuns: 60, warmupRuns: 5, concurrency: 2 }, { tenantKey: tenant.apiKey });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ jobId: expect.stringMatching(/^bench_[0-9a-f]{32}$/), status: 'queued', estimatedDuration: expect.stringMatching(/^\d+[smh]$/) });
    jobId = r.body.jobId;
    const usage = await callSuite(t, '/usage', { tenantKey: tenant.apiKey });
    expect(usage.body.usage.benchmarkRuns).toBe(1);
    const job = await finished(jobId, { tenantKey: tenant.apiKey });
    expect(job.status).toBe('succeeded');
    expect(fast.hits() - before).toBe(65);
    expect(job.progress).toEqual({ done: 65, total: 65 });
    expect(job.result.succeeded).toBe(60);
    expect(job.result.samplesMs).toHaveLength(60);
    expect(job.result.statusCodes).toEqual({ 200: 60 });
    expect(job.result.latency.p50Ms).toBeGreaterThanOrEqual(10);
    expect(job.result.latency.p99Ms).toBeGreaterThanOrEqual(job.result.latency.p50Ms);
    expect(job.result.machine).toMatchObject({ cores: expect.any(Number), node: process.version });
    expect(job.result.settings).toEqual({ testRuns: 60, warmupRuns: 5, concurrency: 2 });
  });

  it("shows a tenant's job to that tenant only", async () => {
    expect((await call(`/run/${jobId}`, { token: reader })).status).toBe(404);
  });

  it('reports in JSON and in Markdown', async () => {
    const other = await run({ provider: 'http', url: fast.url, testRuns: 20 });
    await finished(other.body.jobId);
    const json = await call(`/run/${other.body.jobId}/report`, { token: reader });
    expect(json.status).toBe(200);
    expect(json.body.latency.p50Ms).toBeGreaterThan(0);
    expect(json.body.histogram.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(20);
    const md = await call(`/run/${other.body.jobId}/report`, { token: reader, headers: { accept: 'text/markdown' } });
    expect(md.headers.get('content-type')).toContain('text/markdown');
    expect(md.text).toContain('| Latency | n | mean |');
    expect(md.text).toContain('#');
  });

  it('answers 404 for an unknown job and 409 for a report of a job not finished', async () => {
    expect((await call(`/run/bench_${'0'.repeat(32)}`, { token: reader })).status).toBe(404);
    const long = await run({ provider: 'http', url: slow.url, testRuns: 60, warmupRuns: 0 });
    const early = await call(`/run/${long.body.jobId}/report`, { token: reader });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('CONFLICT');
    await finished(long.body.jobId);
  });
});

describe('GET /compare', () => {
  it('calls slow after fast a regression, the reverse an improvement, and a run against itself no significant change', {
    timeout: machineTimeout(90_000),
  }, async () => {
    // Delays long beside the jitter of a loaded 2-core machine (a few ms): a 25 ms target once read
    // 5% slower in one of two runs of the same server under load 5, which is a real change in
    // what was measured, not what this test is about.
    const steadyFast = await startTargetServer({ delayMs: 60 });
    const steadySlow = await startTargetServer({ delayMs: 120 });
    const ids: Record<string, string> = {};
    try {
      for (const [name, server] of [
        ['cmp-fast-a', steadyFast],
        ['cmp-slow', steadySlow],
        ['cmp-fast-b', steadyFast],
        ['cmp-fast-c', steadyFast],
      ] as const) {
        const r = await run({ provider: 'http', url: server.url, name, testRuns: 40, warmupRuns: 5 });
        ids[name] = r.body.jobId;
        await finished(r.body.jobId);
      }
    } finally {
      await steadyFast.close();
      await steadySlow.close();
    }
    const worse = await call('/compare?baseline=cmp-fast-a&candidate=cmp-slow', { token: reader });
    expect(worse.status).toBe(200);
    expect(worse.body).toMatchObject({ verdict: 'regression', significant: true, alpha: 0.05 });
    expect(worse.body.deltaMeanMs).toBeGreaterThan(5);
    expect(worse.body.mannWhitney.pValue).toBeLessThan(0.05);
    const better = await call(`/compare?baseline=${ids['cmp-slow']}&candidate=${ids['cmp-fast-b']}`, { token: reader });
    expect(better.body.verdict, JSON.stringify(better.body)).toBe('improvement');
    // Two runs of the same server at different times are not the same measurement on a loaded
    // machine (CI saw cmp-fast-a at mean 87 ms, stddev 48, beside cmp-fast-b's 63: rightly called a
    // change). Equal distributions are core/bench/statistics.test.ts's; here, a run against itself.
    const same = await call(`/compare?baseline=cmp-fast-b&candidate=${ids['cmp-fast-b']}`, { token: reader });
    expect(same.body, JSON.stringify(same.body)).toMatchObject({ verdict: 'no significant change', significant: false, deltaMeanMs: 0 });
    // No false positive: two runs of one server, back to back (no other run between them, so the
    // least drift of the machine's load). The verdict needs both tests at p < 0.05 and a change of
    // at least 5% of the mean; the noise measured here (the standard error of the difference of
    // the two means, from the runs' own spread) is printed beside the 5%. Measured at load ~2: 0.14%.
    const twice = await call(`/compare?baseline=cmp-fast-b&candidate=cmp-fast-c`, { token: reader });
    const {
      baseline: b,
      candidate: c,
      minimumDeltaPercent,
    } = twice.body as { baseline: { n: number; meanMs: number; stddevMs: number }; candidate: typeof b; minimumDeltaPercent: number };
    const noisePercent = (100 * Math.sqrt(b.stddevMs ** 2 / b.n + c.stddevMs ** 2 / c.n)) / b.meanMs;
    process.stdout.write(
      `bench no-false-positive: two runs of one 60 ms server: means ${b.meanMs} and ${c.meanMs} ms (stddev ${b.stddevMs}, ${c.stddevMs}); ` +
        `noise (standard error of the difference) ${noisePercent.toFixed(2)}% of the mean, bound ${minimumDeltaPercent}%; verdict ${twice.body.verdict}\n`,
    );
    // On a machine busier than the bound was chosen for (CI beside other work: 10.7% at load 11), the
    // verdict is still asserted: a noisy pair must not be called a change either.
    if (noisePercent >= minimumDeltaPercent)
      process.stdout.write(`bench no-false-positive: noise ${noisePercent.toFixed(2)}% is above the ${minimumDeltaPercent}% bound: a busy machine\n`);
    expect(twice.body, JSON.stringify(twice.body)).toMatchObject({ verdict: 'no significant change', significant: false });
  });

  it('answers 404 for an unknown run, 409 for one not finished, 400 without both parameters', async () => {
    expect((await call('/compare?baseline=nope&candidate=nope', { token: reader })).status).toBe(404);
    const long = await run({ provider: 'http', url: slow.url, name: 'cmp-running', testRuns: 60, warmupRuns: 0 });
    const r = await call('/compare?baseline=cmp-running&candidate=cmp-running', { token: reader });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/queued|running/);
    expect((await call('/compare?baseline=x', { token: reader })).status).toBe(400);
    await finished(long.body.jobId);
  });
});

describe('GET /history and GET /providers', () => {
  it('pages and filters runs by name and provider, without their samples', async () => {
    const r = await call('/history?name=cmp-slow&limit=5', { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    expect(r.body.runs[0]).toMatchObject({ name: 'cmp-slow', provider: 'http', status: 'succeeded' });
    expect(r.body.runs[0].result.samplesMs).toBeUndefined();
    expect((await call('/history?provider=openai', { token: reader })).body.total).toBe(0);
    expect((await call('/history?provider=nope', { token: reader })).status).toBe(400);
  });

  it('lists the four providers, publicly', async () => {
    const r = await call('/providers');
    expect(r.status).toBe(200);
    expect(r.body.providers.map((p: { name: string }) => p.name)).toEqual(['ollama', 'openai', 'anthropic', 'http']);
    expect(JSON.stringify(r.body)).not.toMatch(/key/i);
  });

  it('needs bench:run to start a run and bench:read to read', async () => {
    expect((await run({ provider: 'http', url: fast.url }, { token: reader })).status).toBe(403);
    expect((await call('/history')).status).toBe(401);
  });
});

describe('LLM runs', () => {
  it('measures the configured OpenAI-compatible server with the configured key, and shows or stores the key nowhere', async () => {
    const r = await run({ provider: 'openai', model: 'gpt-4o-mini', name: 'llm-openai', testRuns: 4, warmupRuns: 1 });
    expect(r.status).toBe(202);
    const job = await finished(r.body.jobId);
    expect(job.status).toBe('succeeded');
    expect(openai.requests.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(job.result.ttft.p50Ms).toBeGreaterThanOrEqual(18);
    expect(job.result.interTokenLatency.count).toBe(4 * 5);
    expect(job.result.outputTokens).toBe(4 * 6);
    expect(job.result.outputTokensPerSecond).toBeGreaterThan(0);
    const shown = [
      JSON.stringify(job),
      (await call(`/run/${r.body.jobId}/report`, { token: reader, headers: { accept: 'text/markdown' } })).text,
      (await call('/history', { token: reader })).text,
      (await call('/providers')).text,
    ];
    for (const text of shown) expect(text).not.toContain(KEY);
    const rows = await t.suite.storage!.pool.anyFirst(sql.unsafe`select row_to_json(j)::text from bench_jobs j`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(String(row)).not.toContain(KEY);
  });

  it('sends no key to a server a job names itself', async () => {
    const r = await run({ provider: 'openai', model: 'gpt-4o-mini', url: elsewhere.base, testRuns: 2, warmupRuns: 0 });
    const job = await finished(r.body.jobId);
    expect(job.status).toBe('succeeded');
    expect(elsewhere.requests.length).toBe(2);
    expect(elsewhere.requests.every((q) => q.headers.authorization === undefined)).toBe(true);
  });

  it('measures Ollama at OLLAMA_HOST, and fails a run of an unknown model with its error kind', async () => {
    const ok = await finished((await run({ provider: 'ollama', model: 'llama3.2', testRuns: 3, warmupRuns: 0 })).body.jobId);
    expect(ok.status).toBe('succeeded');
    expect(ok.result.outputTokens).toBe(12);
    const missing = await finished((await run({ provider: 'ollama', model: 'nope', testRuns: 2, warmupRuns: 0 })).body.jobId);
    expect(missing.status).toBe('failed');
    expect(missing.error.message).toContain('not_found: 2');
    const providers = (await call('/providers')).body.providers;
    expect(providers.find((p: { name: string }) => p.name === 'openai').configured).toBe(true);
    expect(providers.find((p: { name: string }) => p.name === 'anthropic').configured).toBe(false);
  });
});

describe('the core benchmark', () => {
  const latest = async (other?: string) => {
    const until = Date.now() + machineTimeout(30_000);
    for (;;) {
      const r = await call('/bench/core');
      if (r.status === 200 && r.body.runId !== other) return r.body;
      if (Date.now() > until) throw new Error('no core run stored');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('has nothing before a run (404), runs the six operations, and compares the latest run with the previous one on this machine', async () => {
    expect((await call('/bench/core')).status).toBe(404);
    expect((await call('/bench/core/regression')).status).toBe(404);
    const started = await call('/bench/core', { token: runner, body: { iterations: 30, chainLength: 50 } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ runId: expect.stringMatching(/^core_/), status: 'running' });
    expect((await call('/bench/core', { token: runner, body: {} })).status).toBe(409);
    const first = await latest();
    expect(Object.keys(first.result.operations).sort()).toEqual(['explain', 'tokenIssue', 'tokenValidate', 'traceAppend', 'verifyChain', 'verifyRecord']);
    expect(first.result.operations.traceAppend.summary.count).toBe(30);
    expect(first.result.operations.traceAppend.samplesMs).toBeUndefined();
    expect(first.machine).toMatchObject({ node: process.version });
    expect((await call('/bench/core/regression')).status).toBe(404);
    await call('/bench/core', { token: runner, body: { iterations: 30, chainLength: 50 } });
    const second = await latest(first.runId);
    const r = await call('/bench/core/regression');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ latest: second.runId, previous: first.runId, machineKey: first.machineKey });
    expect(['regression', 'improvement', 'no significant change']).toContain(r.body.verdict);
    expect(Object.keys(r.body.operations)).toHaveLength(6);
    expect(r.body.operations.explain).toMatchObject({ alpha: 0.05, welch: expect.any(Object), mannWhitney: expect.any(Object) });
  });

  it('needs bench:run to start, and refuses bad settings', async () => {
    expect((await call('/bench/core', { token: reader, body: {} })).status).toBe(403);
    const bad = await call('/bench/core', { token: runner, body: { iterations: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('iterations');
  });
});
