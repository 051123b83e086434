import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { executionExportLine, type ExecutionRecord } from '../../core/chain/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { runDocumentedScript } from '../../testing/trace-format.ts';
import { listRoutes } from '../../edge-http/index.ts';
import { SERVICE_MODULES } from '../../services/index.ts';
import { mcpToolsOf } from '../../cli/edge.ts';
import { ANY_JSON_VALUE } from '../../edge-mcp/index.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * `/mcp` on the token listener (issue 18), with the SDK's own client against a real suite: discovery
 * filtered by capability, the signed trace of every completed call, refusals audited, revocation at once.
 */

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function connect(token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(t.url('token', '/mcp')), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

async function audit(subject: string): Promise<Array<{ action: string; resource: string; result: string; reason: string }>> {
  const res = await fetch(t.url('token', `/audit?subject=${encodeURIComponent(subject)}&limit=500`), { headers: { 'x-suite-admin-key': t.adminKey } });
  return ((await res.json()) as { entries: Array<{ action: string; resource: string; result: string; reason: string }> }).entries;
}

async function publicKeyPem(): Promise<string> {
  return ((await (await fetch(t.url('token', '/executions/public-key'))).json()) as { publicKey: string }).publicKey;
}

describe('MCP over Streamable HTTP at /mcp', () => {
  it('gives every tool the scope of the route it stands for, as the running listeners declare it', () => {
    const routes = t.suite.edges.flatMap((e) => listRoutes(e.app));
    const authorities = new Map<string, unknown>(routes.map((r) => [`${r.method} ${r.url}`, r.authority] as const));
    const tools = mcpToolsOf(SERVICE_MODULES);
    expect(tools.length).toBe(30);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
    // A tool call is traced in its caller's name, so a tool for a public route takes the scope of
    // its service's reads (docs/MCP.md); the list is short and each is named.
    const publicRouteTools: Record<string, string> = { list_connectors: 'connector:read' };
    const declared = new Set(routes.flatMap((r) => (r.authority as { scope?: string }).scope ?? []));
    for (const tool of tools) {
      const label = `${tool.name} (${tool.route})`;
      if (tool.name in publicRouteTools) {
        expect(authorities.get(tool.route), label).toMatchObject({ kind: 'public' });
        expect({ scope: tool.scope, declared: declared.has(tool.scope) }, label).toEqual({ scope: publicRouteTools[tool.name], declared: true });
      } else {
        expect(authorities.get(tool.route), label).toMatchObject({ kind: 'scope', scope: tool.scope });
      }
    }
  });

  it('lists only the tools a narrow token can call', async () => {
    const { token } = await t.mint(['execution:read']);
    const client = await connect(token);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['attention_list', 'execution_conditions', 'explain_execution', 'get_execution', 'verify_execution']);
    const all = (await (await connect((await t.mint(['*'])).token)).listTools()).tools.map((tool) => tool.name);
    expect(all).toEqual(expect.arrayContaining(['record_execution', 'mint_token', 'validate_token', 'read_audit', 'create_schedule', 'queue_task']));
    await client.close();
  });

  it("types every tool's outputSchema.result with its route's answer, never an untyped value", async () => {
    const client = await connect((await t.mint(['*'])).token);
    const tools = (await client.listTools()).tools;
    expect(tools.length).toBe(30);
    const untyped: string[] = [];
    for (const tool of tools) {
      const result = (tool.outputSchema?.properties as Record<string, Record<string, unknown>> | undefined)?.result;
      // The fallback is any JSON value (an anyOf of every type); a route's answer is an object, a union or an intersection of them.
      const { description: _, ...shape } = result ?? {};
      const typed = result !== undefined && JSON.stringify(shape) !== JSON.stringify(ANY_JSON_VALUE) && ['type', 'anyOf', 'allOf'].some((k) => k in shape);
      if (!typed) untyped.push(tool.name);
    }
    expect(untyped).toEqual([]);
    await client.close();
  });

  it('returns the signed trace of a call, which verifies with the published key and with openssl', async () => {
    const { token } = await t.mint(['execution:record', 'execution:read'], { sub: 'mcp-agent-trace' });
    const client = await connect(token);
    const result = await client.callTool({
      name: 'record_execution',
      arguments: { subject: 'crm-bot', module: 'crm', action: 'update', input: { id: 7 }, output: { ok: true }, outcome: 'success' },
    });
    expect(result.isError).toBeFalsy();
    const { result: recorded, trace } = result.structuredContent as { result: ExecutionRecord; trace: ExecutionRecord };
    expect(recorded).toMatchObject({ subject: 'crm-bot', module: 'crm', action: 'update' });
    expect(trace).toMatchObject({ subject: 'mcp-agent-trace', module: 'mcp', action: 'record_execution', outcome: 'success', prevHash: recorded.hash });
    expect(trace).toHaveProperty('signature');
    expect(trace).toHaveProperty('keyId');

    // The suite's own verifier, against the key published without credentials.
    const verified = await client.callTool({ name: 'verify_execution', arguments: { record: trace, publicKey: await publicKeyPem() } });
    expect((verified.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
    // And offline, by the steps of docs/TRACE-FORMAT.md with the openssl binary.
    const shell = runDocumentedScript('verify-record', { 'record.line': executionExportLine(trace), 'pub.pem': await publicKeyPem() });
    expect(shell.stderr + shell.stdout).toContain('Signature Verified Successfully');
    expect(shell.status).toBe(0);
    await client.close();
  });

  it('refuses an out-of-scope call with 403 insufficient_scope naming the scope (RFC 6750 §3.1, MCP step-up), and audits the denial', async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'mcp-agent-narrow' });
    const client = await connect(token);
    const call = client.callTool({ name: 'mint_token', arguments: { sub: 'x', scope: ['execution:read'] } });
    await expect(call).rejects.toThrow(/CAPABILITY_INSUFFICIENT.*auth:token:create/);
    const res = await fetch(t.url('token', '/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mint_token', arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", error="insufficient_scope", scope="auth:token:create"/,
    );
    await expect
      .poll(() => audit('mcp-agent-narrow'))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            action: 'auth:token:create',
            resource: 'mcp tools/call mint_token',
            result: 'deny',
            reason: 'CAPABILITY_INSUFFICIENT: the token does not grant auth:token:create',
          }),
        ]),
      );
    await client.close();
  });

  it('counts tool calls by tool and result on /metrics', async () => {
    const metrics = await (await fetch(t.url('token', '/metrics'))).text();
    expect(metrics).toMatch(/^mcp_tool_calls_total\{tool="mint_token",result="refused"\} [1-9]/m);
    expect(metrics).toMatch(/^mcp_tool_calls_total\{tool="record_execution",result="success"\} [1-9]/m);
  });

  it('traces a failed call with outcome failure', async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'mcp-agent-fail' });
    const client = await connect(token);
    const result = await client.callTool({ name: 'get_execution', arguments: { id: `exec_${'0'.repeat(32)}` } });
    expect(result.isError).toBe(true);
    const { error, trace } = result.structuredContent as { error: { code: string }; trace: ExecutionRecord };
    expect(error.code).toBe('NOT_FOUND');
    expect(trace).toMatchObject({ subject: 'mcp-agent-fail', module: 'mcp', action: 'get_execution', outcome: 'failure' });
    await client.close();
  });

  it('mints only narrower tokens: a scope the caller lacks is refused', async () => {
    const { token } = await t.mint(['auth:token:create', 'execution:read'], { sub: 'mcp-minter' });
    const client = await connect(token);
    const narrower = await client.callTool({ name: 'mint_token', arguments: { sub: 'child', scope: ['execution:read'] } });
    expect(narrower.isError).toBeFalsy();
    expect((narrower.structuredContent as { result: { token: string } }).result.token).toMatch(/^ey/);
    const wider = await client.callTool({ name: 'mint_token', arguments: { sub: 'child', scope: ['audit:read'] } });
    expect(wider.isError).toBe(true);
    expect((wider.structuredContent as { error: { code: string } }).error.code).toBe('CAPABILITY_INSUFFICIENT');
    await client.close();
  });

  it('schedules and queues through the scheduler tools, each call traced, a duplicate id a traced failure', async () => {
    const { token } = await t.mint(['schedule:create', 'schedule:read', 'queue:write', 'queue:read'], { sub: 'mcp-scheduler' });
    const client = await connect(token);
    const task = { type: 'http', url: 'http://127.0.0.1:9/never', method: 'POST' };
    const scheduled = await client.callTool({ name: 'create_schedule', arguments: { id: 'mcp-nightly', cron: '0 3 * * *', task } });
    expect(scheduled.isError, JSON.stringify(scheduled.structuredContent)).toBeFalsy();
    expect(scheduled.structuredContent).toMatchObject({ result: { id: 'mcp-nightly' }, trace: { action: 'create_schedule', outcome: 'success' } });
    const listed = await fetch(t.url('scheduler', '/schedule'), { headers: { authorization: `Bearer ${token}` } });
    expect(((await listed.json()) as { schedules: Array<{ id: string }> }).schedules.map((x) => x.id)).toContain('mcp-nightly');
    const again = await client.callTool({ name: 'create_schedule', arguments: { id: 'mcp-nightly', cron: '0 4 * * *', task } });
    expect(again.structuredContent).toMatchObject({ error: { code: 'CONFLICT' }, trace: { action: 'create_schedule', outcome: 'failure' } });
    const queued = await client.callTool({ name: 'queue_task', arguments: { id: 'mcp-once', delay: 3_600_000, task } });
    expect(queued.isError, JSON.stringify(queued.structuredContent)).toBeFalsy();
    expect(queued.structuredContent).toMatchObject({ result: { id: 'mcp-once' }, trace: { action: 'queue_task', outcome: 'success' } });
    const status = await fetch(t.url('scheduler', '/queue/mcp-once/status'), { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    await client.close();
  });

  it('refuses a token revoked mid-session on its next call, and lists no tool for it', async () => {
    const minted = await t.mint(['execution:read'], { sub: 'mcp-agent-revoked' });
    const client = await connect(minted.token);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const res = await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: minted.jti }),
    });
    expect(res.status).toBe(200);
    await expect(client.callTool({ name: 'attention_list', arguments: {} })).rejects.toThrow(/TOKEN_REVOKED/);
    // Refused at the HTTP layer now (RFC 9728): 401 with the resource metadata, no tool list at all.
    await expect(client.listTools()).rejects.toThrow(/TOKEN_REVOKED/);
    await client.close();
  });

  it('answers bad input with MCP errors and records nothing for it', async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'mcp-agent-bad' });
    const client = await connect(token);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/);
    await expect(client.callTool({ name: 'get_execution', arguments: { id: 42 } })).rejects.toThrow(/arguments\/id/);
    await expect(client.callTool({ name: 'attention_list', arguments: { limit: 0 } })).rejects.toThrow(/arguments\/limit/);
    const list = await fetch(t.url('token', '/executions?subject=mcp-agent-bad'), { headers: { authorization: `Bearer ${token}` } });
    expect(((await list.json()) as { records: unknown[] }).records).toEqual([]);
    const garbage = await fetch(t.url('token', '/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '1.0', method: 42 }),
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    await client.close();
  });

  it('answers 401 with WWW-Authenticate naming the resource metadata to a missing, garbage, expired or revoked token (RFC 9728 §5.1)', async () => {
    const revoked = await t.mint(['execution:read'], { sub: 'mcp-revoked-at-start' });
    await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: revoked.jti }),
    });
    const metadata = `resource_metadata="${t.url('token', '/.well-known/oauth-protected-resource/mcp')}"`;
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'TOKEN_MISSING'],
      ['not.a.token', 'TOKEN_INVALID'],
      [await t.expiredToken(['execution:read']), 'TOKEN_EXPIRED'],
      [revoked.token, 'TOKEN_REVOKED'],
    ];
    for (const [token, code] of cases) {
      const res = await fetch(t.url('token', '/mcp'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
      expect(res.status, code).toBe(401);
      expect(res.headers.get('www-authenticate'), code).toEqual(
        token === undefined ? `Bearer ${metadata}` : expect.stringMatching(new RegExp(`^Bearer ${metadata.replace(/[.?/]/g, '\\$&')}, error="invalid_token"`)),
      );
      expect(await res.json(), code).toMatchObject({ error: { code } });
      await expect(connect(token), code).rejects.toThrow(new RegExp(code));
    }
  });

  it('serves the protected resource metadata that the 401 names, pointing at the authorization server', async () => {
    const meta = await (await fetch(t.url('token', '/.well-known/oauth-protected-resource/mcp'))).json();
    expect(meta).toMatchObject({ resource: t.url('token', '/mcp'), authorization_servers: [t.url('token')], bearer_methods_supported: ['header'] });
    expect(meta.scopes_supported).toContain('execution:read');
    const root = await (await fetch(t.url('token', '/.well-known/oauth-protected-resource'))).json();
    expect(root).toEqual(meta);
  });

  it('refuses a client that skips initialize without a token with 401 TOKEN_MISSING', async () => {
    const res = await fetch(t.url('token', '/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'attention_list', arguments: {} } }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'TOKEN_MISSING' } });
  });

  it('answers hostile bodies with 4xx, never 500, and records nothing', async () => {
    const { token } = await t.mint(['*'], { sub: 'mcp-agent-hostile' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
    let deep = '0';
    for (let i = 0; i < 5_000; i++) deep = `[${deep}]`;
    const call = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_execution","arguments":${args}}}`;
    const bodies = [
      '',
      'null',
      '[]',
      '"x"',
      deep,
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      `{"jsonrpc":"2.0","id":1,"method":"${'m'.repeat(100_000)}"}`,
      '{"jsonrpc":"2.0","id":1,"method":"tools/list\\u0000"}',
      call('{"subject":"\\ud800","module":"m","action":"a","input":1,"outcome":"success"}'),
      call('{"subject":"s\\u0000","module":"m","action":"a","input":1,"outcome":"success"}'),
      call('{"subject":"s","module":"m","action":"a","input":"\\ud800","outcome":"success"}'),
      call(`{"subject":"s","module":"m","action":"a","input":${deep},"outcome":"success"}`),
      call('{"__proto__":{"x":1},"subject":"s","module":"m","action":"a","input":1,"outcome":"success"}'),
    ];
    for (const body of bodies) {
      const res = await fetch(t.url('token', '/mcp'), { method: 'POST', headers, body });
      const label = `${body.slice(0, 60)} -> ${res.status}`;
      expect(res.status, label).toBeLessThan(500);
      // A JSON-RPC error travels with 200 inside a valid envelope; `[]` is an empty batch (no request:
      // 202 with nothing done); anything else is a 4xx.
      if (res.status === 200) expect((await res.json()) as { error?: unknown }, label).toHaveProperty('error');
      else if (body !== '[]') expect(res.status, label).toBeGreaterThanOrEqual(400);
    }
    expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
    const unparseable = await fetch(t.url('token', '/mcp'), { method: 'POST', headers, body: '{"jsonrpc":' });
    expect({ status: unparseable.status, body: await unparseable.json() }).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(t.url('token', '/mcp'), { method, headers: { authorization: `Bearer ${token}` } });
      expect({ method, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, status: 405, allow: 'POST' });
    }
    const list = await fetch(t.url('token', '/executions?subject=s'), { headers: { authorization: `Bearer ${token}` } });
    expect(((await list.json()) as { records: unknown[] }).records).toEqual([]);
    const traces = await fetch(t.url('token', '/executions?subject=mcp-agent-hostile'), { headers: { authorization: `Bearer ${token}` } });
    expect(((await traces.json()) as { records: unknown[] }).records).toEqual([]);
  });
});
