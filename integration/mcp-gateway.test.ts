import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { executionExportLine, hashCanonical } from '../core/chain/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { runDocumentedScript } from '../testing/trace-format.ts';
import { NODE, SERVER_EVERYTHING, SERVER_FILESYSTEM, startEverythingOverHttp, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { mcpToolsOf } from '../cli/edge.ts';
import { SERVICE_MODULES } from '../services/index.ts';
import { connectMcp, textOf, traceOf, upstreamsOf, waitForUpstreams } from '../testing/mcp-gateway.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The MCP gateway (issue 27) with real MCP servers from npm: server-everything over stdio, the same
 * server behind Streamable HTTP, server-filesystem over stdio on a temporary folder. Driven by the
 * SDK's client through the suite's `/mcp`.
 */

const LIMITED = { timeoutMs: 1500, maxResultBytes: 4096 };
let t: TestSuite;
let http: Awaited<ReturnType<typeof startEverythingOverHttp>>;
let file: ReturnType<typeof writeUpstreamsFile>;
let filesDir: string;

const stateOf = async (name: string) => (await upstreamsOf(t)).find((u) => u.name === name);
const connect = (token: string) => connectMcp(t, token);

beforeAll(async () => {
  http = await startEverythingOverHttp();
  // The filesystem server serves the folder the file is in.
  filesDir = mkdtempSync(join(tmpdir(), 'mcp-gateway-files-'));
  file = writeUpstreamsFile({
    everything: {
      command: NODE,
      args: [SERVER_EVERYTHING, 'stdio'],
      env: { SECRET_OF_EVERYTHING: 'upstream-credential' },
      scopes: { 'get-sum': 'math:read' },
      ...LIMITED,
    },
    remote: { type: 'http', url: http.url },
    files: { command: NODE, args: [SERVER_FILESYSTEM, filesDir] },
    single: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'], maxConcurrent: 1, ...LIMITED },
  });
  t = await startTestSuite({ SUITE_MCP_UPSTREAMS: file.path });
  await waitForUpstreams(t);
}, machineTimeout(90_000));
afterAll(async () => {
  await t?.stop();
  await http?.stop();
  file?.cleanup();
  if (filesDir !== undefined) rmSync(filesDir, { recursive: true, force: true });
});

describe('discovery through the gateway, filtered by capability', () => {
  it("shows a token with one tool's scope exactly that tool", async () => {
    const client = await connect((await t.mint(['mcp:everything:echo'])).token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['everything__echo']);
    await client.close();
  });

  it("maps a tool to the scope the file gives it, and a server's tools to mcp:<server>:*", async () => {
    const math = await connect((await t.mint(['math:read'])).token);
    expect((await math.listTools()).tools.map((tool) => tool.name)).toEqual(['everything__get-sum']);
    const files = await connect((await t.mint(['mcp:files:*'])).token);
    const names = (await files.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['files__read_text_file', 'files__write_file', 'files__list_directory']));
    expect(names.every((n) => n.startsWith('files__'))).toBe(true);
    await math.close();
    await files.close();
  });

  it("lists the suite's tools and every upstream's, namespaced, with no name twice", async () => {
    const client = await connect((await t.mint(['*'])).token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['record_execution', 'everything__echo', 'remote__echo', 'files__list_directory']));
    expect(new Set(names).size).toBe(names.length);
    // The namespacing rule holds because the suite's own tools never hold the separator.
    expect(mcpToolsOf(SERVICE_MODULES).filter((tool) => tool.name.includes('__'))).toEqual([]);
    await client.close();
  });
});

describe('calls through the gateway: decided, forwarded, attested', () => {
  it("forwards the arguments intact and returns the upstream's result with its signed trace, which openssl verifies", async () => {
    const { token } = await t.mint(['mcp:everything:echo'], { sub: 'gateway-agent' });
    const client = await connect(token);
    const args = { message: 'héllo ✓ "quoted" \\ end' };
    const result = (await client.callTool({ name: 'everything__echo', arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`Echo: ${args.message}`);
    const trace = traceOf(result);
    expect(trace).toMatchObject({ subject: 'gateway-agent', module: 'mcp:everything', action: 'echo', outcome: 'success', scope: ['mcp:everything:echo'] });
    // Input and output hashed (RFC 8785, SHA-256), never kept: the hashes are of exactly what went and came.
    const { _meta: _, ...upstreamResult } = result;
    expect(trace.inputHash).toBe(hashCanonical(args));
    expect(trace.outputHash).toBe(hashCanonical(upstreamResult));
    const pem = ((await (await fetch(t.url('token', '/executions/public-key'))).json()) as { publicKey: string }).publicKey;
    const shell = runDocumentedScript('verify-record', { 'record.line': executionExportLine(trace), 'pub.pem': pem });
    expect(shell.stderr + shell.stdout).toContain('Signature Verified Successfully');
    expect(shell.status).toBe(0);
    await client.close();
  });

  it('reaches an upstream behind Streamable HTTP and one on a temporary folder', async () => {
    const client = await connect((await t.mint(['mcp:remote:get-sum', 'mcp:files:*'])).token);
    const sum = (await client.callTool({ name: 'remote__get-sum', arguments: { a: 2, b: 40 } })) as CallToolResult;
    expect(textOf(sum)).toMatch(/\b42\b/);
    expect(traceOf(sum)).toMatchObject({ module: 'mcp:remote', action: 'get-sum', outcome: 'success' });
    const written = (await client.callTool({
      name: 'files__write_file',
      arguments: { path: `${filesDir}/note.txt`, content: 'written through the gateway' },
    })) as CallToolResult;
    expect(written.isError, textOf(written)).toBeFalsy();
    const read = (await client.callTool({ name: 'files__read_text_file', arguments: { path: `${filesDir}/note.txt` } })) as CallToolResult;
    expect(textOf(read)).toBe('written through the gateway');
    await client.close();
  });

  it("passes the upstream its own credentials, never the caller's token or the suite's secrets", async () => {
    const { token } = await t.mint(['mcp:everything:get-env'], { sub: 'env-reader' });
    const client = await connect(token);
    const env = textOf((await client.callTool({ name: 'everything__get-env', arguments: {} })) as CallToolResult);
    expect(env).toContain('upstream-credential');
    expect(env).not.toContain(token);
    expect(env).not.toContain('SUITE_');
    await client.close();
  });

  it("refuses a call beyond the token's scope, audited, and never forwards it", async () => {
    const client = await connect((await t.mint(['mcp:everything:echo'], { sub: 'narrow-gateway-agent' })).token);
    await expect(client.callTool({ name: 'everything__get-env', arguments: {} })).rejects.toThrow(
      /^MCP error -32001: CAPABILITY_INSUFFICIENT: token does not grant mcp:everything:get-env$/,
    );
    const res = await fetch(t.url('token', '/audit?subject=narrow-gateway-agent&limit=50'), { headers: { 'x-suite-admin-key': t.adminKey } });
    const entries = ((await res.json()) as { entries: Array<{ resource: string; result: string }> }).entries;
    expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ resource: 'mcp tools/call everything__get-env', result: 'deny' })]));
    await client.close();
  });

  it('refuses a revoked token on its next call in the same session', async () => {
    const minted = await t.mint(['mcp:everything:echo'], { sub: 'revoked-gateway-agent' });
    const client = await connect(minted.token);
    expect((await client.callTool({ name: 'everything__echo', arguments: { message: 'before' } })).isError).toBeFalsy();
    await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: minted.jti }),
    });
    await expect(client.callTool({ name: 'everything__echo', arguments: { message: 'after' } })).rejects.toThrow(/TOKEN_REVOKED/);
    await client.close();
  });

  it("answers the upstream's refusal of bad arguments as an error result, traced as a failure", async () => {
    const client = await connect((await t.mint(['mcp:everything:echo'])).token);
    const result = (await client.callTool({ name: 'everything__echo', arguments: { message: 42 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(traceOf(result)).toMatchObject({ action: 'echo', outcome: 'failure' });
    await client.close();
  });
});

describe("the gateway's limits and an upstream that fails", () => {
  it('answers a hanging call with a timeout result and keeps serving', async () => {
    const client = await connect((await t.mint(['mcp:everything:*'])).token);
    const hung = (await client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 60, steps: 2 } })) as CallToolResult;
    expect(hung.isError).toBe(true);
    expect(textOf(hung)).toBe(`PROVIDER_UNAVAILABLE: upstream everything did not answer within ${LIMITED.timeoutMs} ms`);
    expect(traceOf(hung)).toMatchObject({ action: 'trigger-long-running-operation', outcome: 'failure' });
    expect(textOf((await client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } })) as CallToolResult)).toBe('Echo: still here');
    await client.close();
  });

  it('holds a hanging upstream to its own concurrency cap: its next call waits for the slot, other upstreams answer meanwhile', async () => {
    const client = await connect((await t.mint(['mcp:single:*', 'mcp:remote:echo'])).token);
    const finished: string[] = [];
    const hung = client
      .callTool({ name: 'single__trigger-long-running-operation', arguments: { duration: 60, steps: 2 } })
      .finally(() => finished.push('hung'));
    // Sent once the first holds the one slot (its request is in flight: the upstream says so).
    while ((await stateOf('single'))?.inFlight !== 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const queued = client.callTool({ name: 'single__echo', arguments: { message: 'waits' } }).finally(() => finished.push('queued'));
    const other = (await client.callTool({ name: 'remote__echo', arguments: { message: 'not held' } })) as CallToolResult;
    expect(textOf(other)).toBe('Echo: not held');
    expect(finished).toEqual([]);
    const [first, second] = (await Promise.all([hung, queued])) as CallToolResult[];
    expect(textOf(first as CallToolResult)).toBe(`PROVIDER_UNAVAILABLE: upstream single did not answer within ${LIMITED.timeoutMs} ms`);
    // The queued call ran only once the slot came free: answered after the hung one, within what was left
    // of its own timeout (or timed out waiting, if nothing was left).
    expect(finished).toEqual(['hung', 'queued']);
    expect(textOf(second as CallToolResult)).toMatch(/^(Echo: waits|PROVIDER_UNAVAILABLE: upstream single did not answer within 1500 ms)$/);
    await client.close();
  });

  it('drops a result over the size cap and answers an error result instead', async () => {
    const client = await connect((await t.mint(['mcp:everything:echo'])).token);
    const big = (await client.callTool({ name: 'everything__echo', arguments: { message: 'x'.repeat(LIMITED.maxResultBytes) } })) as CallToolResult;
    expect(big.isError).toBe(true);
    expect(textOf(big)).toMatch(new RegExp(`^PROVIDER_REJECTED: upstream everything answered \\d+ bytes, over its limit of ${LIMITED.maxResultBytes}$`));
    expect(textOf(big)).not.toContain('xxxx');
    await client.close();
  });

  it('answers calls to a killed upstream with a clear error result, restarts it, then forwards again', async () => {
    const client = await connect((await t.mint(['mcp:everything:echo'])).token);
    const before = await stateOf('everything');
    expect(before).toMatchObject({ state: 'ready', pid: expect.any(Number) });
    process.kill(before?.pid as number, 'SIGKILL');
    const failed = (await client.callTool({ name: 'everything__echo', arguments: { message: 'while down' } })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/^PROVIDER_UNAVAILABLE: upstream everything (is (down|connecting)|closed the connection)/);
    expect(traceOf(failed)).toMatchObject({ action: 'echo', outcome: 'failure' });
    await expect.poll(() => stateOf('everything'), { timeout: 30_000 }).toMatchObject({ state: 'ready', restarts: (before?.restarts ?? 0) + 1 });
    expect((await stateOf('everything'))?.pid).not.toBe(before?.pid);
    expect(textOf((await client.callTool({ name: 'everything__echo', arguments: { message: 'back' } })) as CallToolResult)).toBe('Echo: back');
    await client.close();
  });

  it("reports each upstream's state on /metrics", async () => {
    // Standalone: its own call, and the restarts compared with what the gateway reports, so it
    // passes or fails alike whether the tests before it ran or not (vitest -t).
    const client = await connect((await t.mint(['mcp:everything:echo'])).token);
    expect(textOf((await client.callTool({ name: 'everything__echo', arguments: { message: 'counted' } })) as CallToolResult)).toBe('Echo: counted');
    await client.close();
    const restarts = (await stateOf('everything'))?.restarts;
    expect(restarts).toEqual(expect.any(Number));
    const metrics = await (await fetch(t.url('token', '/metrics'))).text();
    expect(metrics).toMatch(/^mcp_upstream_up\{upstream="remote"\} 1$/m);
    expect(metrics).toMatch(new RegExp(`^mcp_upstream_restarts\\{upstream="everything"\\} ${restarts}$`, 'm'));
    expect(metrics).toMatch(/^mcp_tool_calls_total\{tool="everything__echo",result="success"\} [1-9]/m);
  });
});
