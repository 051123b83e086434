import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_STRING_LENGTH } from '../../bus/index.ts';
import type { ExecutionRecord } from '../../core/chain/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { startTargetServer, type TargetServer } from '../../testing/target-server.ts';
import { call as callSuite, claimsOf, createTenant } from '../../testing/tenancy.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The bench, connector and trust tools at `/mcp` (issue 18; docs/MCP.md), with the SDK's own client
 * against a real suite: each narrow token lists only its tools, each call answers what its route
 * answers with the signed trace beside it, an out-of-scope call is refused naming the scope, and
 * arguments failing the route's schema are an MCP error.
 */

let t: TestSuite;
let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer({ delayMs: 2 });
  t = await startTestSuite({ SUITE_BENCH_POLL_MS: '50' });
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await target?.close();
});

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** A client at /mcp with a token of these scopes; `tenantKey`: a token issued under that tenant. */
async function connect(scope: string[], sub: string, tenantKey?: string): Promise<{ client: Client; token: string }> {
  const token =
    tenantKey === undefined
      ? (await t.mint(scope, { sub })).token
      : ((await callSuite(t, '/auth/token', { admin: true, tenantKey, body: { sub, scope } })).body as { token: string }).token;
  const client = new Client({ name: 'mcp-services-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(t.url('token', '/mcp')), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return { client, token };
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

interface Answer {
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
  trace: ExecutionRecord;
}

/** A call that completed: its answer, and its trace checked to be this call's, in this caller's name. */
async function call(client: Client, sub: string, name: string, args: Record<string, unknown>, outcome: 'success' | 'failure' = 'success'): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args });
  const answer = r.structuredContent as unknown as Answer;
  expect(r.isError === true, `${name}: ${JSON.stringify(answer)}`).toBe(outcome === 'failure');
  expect(answer.trace).toMatchObject({ subject: sub, module: 'mcp', action: name, outcome, scope: [expect.any(String)] });
  for (const field of ['id', 'hash', 'prevHash', 'signature', 'keyId'] as const) expect(answer.trace[field]).toEqual(expect.any(String));
  expect(JSON.parse((r.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual(answer);
  return answer;
}

async function http(service: 'bench' | 'trust' | 'connector', path: string, token: string) {
  const res = await fetch(t.url(service, path), { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function audit(subject: string) {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Array<{ action: string; resource: string; result: string; reason: string }> }).entries;
}

describe('discovery of the bench, connector and trust tools', () => {
  it.each([
    [['bench:read'], ['benchmark_history', 'compare_benchmarks', 'get_benchmark_run']],
    [['bench:run'], ['run_benchmark']],
    [['connector:read'], ['list_connectors', 'verify_connector']],
    [
      ['connector:execute'],
      [
        'connector_github_create_issue',
        'connector_github_get_issue',
        'connector_http_request',
        'connector_postgres_query',
        'connector_slack_post_message',
        'connector_webhook_send',
      ],
    ],
    [['trust:read'], ['check_trust_score', 'list_anomalies', 'read_evidence', 'trust_score']],
    [
      ['trust:write', 'trust:verify', 'trust:arbitrate'],
      ['arbitrate_opinions', 'check_grounding', 'record_trust_event'],
    ],
  ])('a token with %j lists exactly %j', async (scope, expected) => {
    const { client } = await connect(scope, 'mcp-lister');
    expect(await names(client)).toEqual(expected);
  });

  it("gives each tool the route's own input schema, the scope in its description", async () => {
    const { client } = await connect(['bench:*', 'connector:*', 'trust:*'], 'mcp-lister');
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect(tools.get('run_benchmark')?.inputSchema).toMatchObject({
      required: ['provider', 'testRuns', 'warmupRuns', 'concurrency'],
      additionalProperties: false,
    });
    expect(tools.get('connector_github_get_issue')?.inputSchema.required).toEqual(expect.arrayContaining(['owner', 'repo', 'number']));
    expect(tools.get('read_evidence')?.inputSchema).toMatchObject({ required: ['subjectId', 'limit'], additionalProperties: false });
    expect(tools.get('compare_benchmarks')?.description).toMatch(/\(scope bench:read\)$/);
  });
});

describe('hostile arguments to the bench, connector and trust tools', () => {
  it("answers each with an MCP invalid-params error (or the edge's 400), never an internal error, and the server keeps answering", async () => {
    const { client } = await connect(['bench:*', 'connector:*', 'trust:*'], 'mcp-hostile');
    const nested = (depth: number) => {
      let value: unknown = 0;
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    // A lone surrogate, a `__proto__` key, nesting or a string past the edge's limits never reaches
    // the MCP layer: the edge answers the body 400, as on every route. The rest fail the tool's schema.
    const hostile: Array<[Record<string, unknown>, number]> = [
      [{ unexpected: 'a\ud800b' }, 400],
      [JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>, 400],
      [{ nested: nested(2_000) }, 400],
      [{ long: 'x'.repeat(MAX_STRING_LENGTH + 1) }, 400],
      [{ nested: nested(10) }, -32602],
      [{ long: 'x'.repeat(10_000) }, -32602],
      [{ unexpected: null }, -32602],
    ];
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools.length).toBe(19);
    for (const name of tools) {
      for (const [args, code] of hostile) {
        const refused = await client.callTool({ name, arguments: args }).catch((err: unknown) => err);
        expect(refused, `${name} ${JSON.stringify(args).slice(0, 40)}`).toMatchObject({ code });
      }
    }
    expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
    expect(await names(client)).toEqual([...tools].sort());
  });
});

describe('bench tools', () => {
  const sub = 'mcp-bencher';
  let client: Client;
  let token: string;
  beforeAll(async () => {
    ({ client, token } = await connect(['bench:run', 'bench:read'], sub));
  });

  async function finished(jobId: string) {
    const until = Date.now() + machineTimeout(20_000);
    for (;;) {
      const { result } = await call(client, sub, 'get_benchmark_run', { jobId });
      if (result?.status === 'succeeded' || result?.status === 'failed') return result;
      if (Date.now() > until) throw new Error(`job ${jobId} still ${String(result?.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('runs two benchmarks, reads them, compares them and lists them, each call traced', async () => {
    const jobs: string[] = [];
    for (const name of ['mcp-base', 'mcp-cand']) {
      const { result } = await call(client, sub, 'run_benchmark', { provider: 'http', url: target.url, name, testRuns: 5, warmupRuns: 0 });
      expect(result).toMatchObject({ jobId: expect.stringMatching(/^bench_[0-9a-f]{32}$/), status: 'queued' });
      jobs.push(result?.jobId as string);
    }
    for (const jobId of jobs) {
      const job = await finished(jobId);
      expect(job).toMatchObject({ jobId, status: 'succeeded', settings: { testRuns: 5, warmupRuns: 0, concurrency: 1 } });
      // The same job the route shows.
      const viaRoute = await http('bench', `/run/${jobId}`, token);
      expect(viaRoute.body).toEqual(job);
    }
    const { result: comparison } = await call(client, sub, 'compare_benchmarks', { baseline: 'mcp-base', candidate: jobs[1] });
    expect(comparison).toMatchObject({ baseline: { jobId: jobs[0], n: 5 }, candidate: { jobId: jobs[1], n: 5 }, verdict: expect.any(String) });
    const { result: history } = await call(client, sub, 'benchmark_history', { name: 'mcp-cand' });
    expect(history).toMatchObject({ total: 1, limit: 50, offset: 0, runs: [{ jobId: jobs[1] }] });
  });

  it('refuses what the route refuses before metering, as a traced failure naming the field', async () => {
    const { error } = await call(client, sub, 'run_benchmark', { provider: 'openai' }, 'failure');
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('model') });
    const refusedUrl = await call(client, sub, 'run_benchmark', { provider: 'http', url: 'file:///etc/passwd' }, 'failure');
    expect(refusedUrl.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('url') });
    const missing = await call(client, sub, 'get_benchmark_run', { jobId: `bench_${'0'.repeat(32)}` }, 'failure');
    expect(missing.error?.code).toBe('NOT_FOUND');
  });

  it("answers arguments failing the route's schema with an MCP error", async () => {
    await expect(client.callTool({ name: 'run_benchmark', arguments: { provider: 'http', url: target.url, testRuns: 0 } })).rejects.toThrow(
      /arguments\/testRuns/,
    );
    await expect(client.callTool({ name: 'get_benchmark_run', arguments: { jobId: 'nope' } })).rejects.toThrow(/arguments\/jobId/);
    await expect(client.callTool({ name: 'compare_benchmarks', arguments: { baseline: 'a' } })).rejects.toBeInstanceOf(McpError);
    await expect(client.callTool({ name: 'benchmark_history', arguments: { color: 'red' } })).rejects.toThrow(/arguments/);
  });

  it("keeps a tenant's runs to that tenant, as the routes do", async () => {
    const tenant = await createTenant(t);
    const own = await connect(['bench:run', 'bench:read'], 'mcp-tenant-bencher', tenant.apiKey);
    expect(claimsOf(own.token).ten).toBe(tenant.id);
    const { result } = await call(own.client, 'mcp-tenant-bencher', 'run_benchmark', {
      provider: 'http',
      url: target.url,
      name: 'mcp-tenant-run',
      testRuns: 2,
      warmupRuns: 0,
    });
    const jobId = result?.jobId as string;
    expect((await call(own.client, 'mcp-tenant-bencher', 'get_benchmark_run', { jobId })).result).toMatchObject({ jobId });
    const outsider = await call(client, sub, 'get_benchmark_run', { jobId }, 'failure');
    expect(outsider.error?.code).toBe('NOT_FOUND');
    const history = await call(client, sub, 'benchmark_history', { name: 'mcp-tenant-run' });
    expect(history.result).toMatchObject({ total: 0, runs: [] });
  });

  it("refuses a read-only token's run with the missing scope, and audits the denial", async () => {
    const reader = await connect(['bench:read'], 'mcp-bench-reader');
    const refused = await reader.client.callTool({ name: 'run_benchmark', arguments: { provider: 'http', url: target.url } }).catch((err: unknown) => err);
    // Refused at the HTTP layer (403 insufficient_scope, RFC 6750 §3.1), the body naming the scope.
    expect(String(refused)).toMatch(/CAPABILITY_INSUFFICIENT.*bench:run/);
    await expect
      .poll(() => audit('mcp-bench-reader'))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            action: 'bench:run',
            resource: 'mcp tools/call run_benchmark',
            result: 'deny',
            reason: expect.stringMatching(/^CAPABILITY_INSUFFICIENT: (the )?token does not grant bench:run$/),
          }),
        ]),
      );
  });
});

describe('connector tools', () => {
  const sub = 'mcp-connector-agent';

  it('lists the connectors as GET /connectors does', async () => {
    const { client, token } = await connect(['connector:read'], sub);
    const { result } = await call(client, sub, 'list_connectors', {});
    expect(result).toEqual((await http('connector', '/connectors', token)).body);
    expect((result as { connectors: Array<{ id: string }> }).connectors.map((c) => c.id)).toEqual(['webhook', 'http', 'slack', 'github', 'postgres']);
    const unconfigured = await call(client, sub, 'verify_connector', { id: 'slack' }, 'failure');
    expect(unconfigured.error?.code).toEqual(expect.any(String));
  });

  it("runs an action: the answer holds the action's own signed record, and the trace follows it", async () => {
    const { client } = await connect(['connector:execute'], sub);
    const before = target.hits();
    const { result, trace } = await call(client, sub, 'connector_http_request', { method: 'GET', url: target.url });
    expect(target.hits()).toBe(before + 1);
    expect(result).toMatchObject({
      id: 'http',
      action: 'request',
      output: { status: 200, body: 'ok' },
      execution: { subject: sub, action: 'http.request', outcome: 'success' },
    });
    expect(trace.seq).toBeGreaterThan((result as { execution: ExecutionRecord }).execution.seq);
  });

  it('refuses an action beyond the scope and bad action input with MCP errors', async () => {
    const { client } = await connect(['connector:read'], 'mcp-connector-reader');
    await expect(client.callTool({ name: 'connector_http_request', arguments: { method: 'GET', url: target.url } })).rejects.toThrow(
      /CAPABILITY_INSUFFICIENT.*connector:execute/,
    );
    const executor = await connect(['connector:execute'], sub);
    await expect(executor.client.callTool({ name: 'connector_http_request', arguments: { method: 'BREW', url: target.url } })).rejects.toThrow(
      /arguments\/method/,
    );
    await expect(executor.client.callTool({ name: 'connector_github_get_issue', arguments: { owner: 'o', repo: 'r' } })).rejects.toThrow(/arguments/);
  });
});

describe('trust tools', () => {
  const sub = 'mcp-trust-agent';

  it('records an event proved by an MCP trace, then reads the evidence, the score and the check', async () => {
    const { client, token } = await connect(['trust:read', 'trust:write'], sub);
    const first = await call(client, sub, 'check_trust_score', { subjectId: 'mcp-invoice-bot' });
    expect(first.result).toMatchObject({ subjectId: 'mcp-invoice-bot', allowed: true, gating: 'disabled' });
    // The trace of that call is an execution record: proof enough for a fact about the agent.
    const recorded = await call(client, sub, 'record_trust_event', {
      subjectId: 'mcp-invoice-bot',
      subjectType: 'agent',
      kind: 'task-succeeded',
      proof: { executionId: first.trace.id },
    });
    expect(recorded.result).toMatchObject({
      subjectId: 'mcp-invoice-bot',
      kind: 'task-succeeded',
      recordedBy: sub,
      proofCheck: expect.stringContaining(first.trace.id),
    });
    const evidence = await call(client, sub, 'read_evidence', { subjectId: 'mcp-invoice-bot' });
    expect(evidence.result).toEqual((await http('trust', '/evidence/mcp-invoice-bot', token)).body);
    expect(evidence.result).toMatchObject({ events: [{ id: recorded.result?.id }] });
    const score = await call(client, sub, 'trust_score', { subjectId: 'mcp-invoice-bot' });
    expect(score.result).toMatchObject({ subjectId: 'mcp-invoice-bot', advisory: true, score: 52, contributions: [{ id: recorded.result?.id, delta: 2 }] });
    const anomalies = await call(client, sub, 'list_anomalies', { kind: 'cycle' });
    expect(anomalies.result).toHaveProperty('anomalies');
    const unknown = await call(client, sub, 'trust_score', { subjectId: 'mcp-nobody-at-all' }, 'failure');
    expect(unknown.error?.code).toBe('NOT_FOUND');
  });

  it('checks grounding and arbitrates opinions, storing nothing', async () => {
    const { client } = await connect(['trust:verify', 'trust:arbitrate'], sub);
    const grounding = await call(client, sub, 'check_grounding', { output: 'Revenue was 4.8 million euros.', sources: ['Revenue was 4.2 million euros.'] });
    expect(grounding.result).toMatchObject({ signals: expect.arrayContaining([expect.objectContaining({ type: 'number-not-in-sources' })]) });
    const arbitration = await call(client, sub, 'arbitrate_opinions', {
      question: 'Refund order 981?',
      opinions: [
        { participant: 'r1', modelFamily: 'gpt-4', position: 'refund' },
        { participant: 'r2', modelFamily: 'claude', position: 'deny', confidence: 0.9 },
      ],
    });
    expect(arbitration.result).toMatchObject({ stored: false, question: 'Refund order 981?' });
  });

  it("refuses a read-only token's write naming the scope, and bad arguments with MCP errors", async () => {
    const { client } = await connect(['trust:read'], 'mcp-trust-reader');
    await expect(
      client.callTool({ name: 'record_trust_event', arguments: { subjectId: 'x', kind: 'note', proof: { executionId: `exec_${'0'.repeat(32)}` } } }),
    ).rejects.toThrow(/CAPABILITY_INSUFFICIENT.*trust:write/);
    await expect(client.callTool({ name: 'read_evidence', arguments: { subjectId: 'x', limit: 0 } })).rejects.toThrow(/arguments\/limit/);
    await expect(client.callTool({ name: 'check_trust_score', arguments: { subjectId: '../x' } })).rejects.toThrow(/arguments\/subjectId/);
    await expect(client.callTool({ name: 'list_anomalies', arguments: { kind: 'weird' } })).rejects.toThrow(/arguments\/kind/);
  });
});
