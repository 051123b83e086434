import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionRecord } from '../core/chain/index.ts';
import { TRACE_META_KEY } from '../edge-mcp/index.ts';
import type { UpstreamStatus } from '../services/mcp-gateway/index.ts';
import { startTestSuite, type TestSuite } from './suite.ts';
import { writeUpstreamsFile } from './mcp-upstreams.ts';

/** Test-only: the gateway of a test suite, as its tests reach it (`GET /mcp/upstreams`, the SDK's client on `/mcp`). */

export async function upstreamsOf(t: TestSuite): Promise<UpstreamStatus[]> {
  const res = await fetch(t.url('token', '/mcp/upstreams'), { headers: { 'x-suite-admin-key': t.adminKey } });
  const body = (await res.json()) as { upstreams: UpstreamStatus[] };
  if (!res.ok) throw new Error(`GET /mcp/upstreams answered ${res.status}: ${JSON.stringify(body)}`);
  return body.upstreams;
}

/**
 * Until every upstream says ready (connected in the background after the listener is up). Just after
 * start a guarded read may be refused 503 until the audit trail commits (no journal in a test suite):
 * not ready yet either. The last refusal is named if they never come up.
 */
export async function waitForUpstreams(t: TestSuite, timeoutMs = 80_000): Promise<void> {
  let last: unknown = 'none ready yet';
  const ready = async () => (await upstreamsOf(t)).every((u) => u.state === 'ready');
  const deadline = Date.now() + timeoutMs;
  while (
    !(await ready().catch((e: unknown) => {
      last = e;
      return false;
    }))
  ) {
    if (Date.now() > deadline) throw new Error(`the upstreams were not all ready in ${timeoutMs / 1000} s; last: ${String(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The SDK's client on the suite's `/mcp`, with the token as bearer and any other headers (a tenant key). */
export async function connectMcp(t: TestSuite, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(t.url('token', '/mcp')), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }),
  );
  return client;
}

export const traceOf = (r: { _meta?: Record<string, unknown> }) => (r._meta as Record<string, ExecutionRecord>)[TRACE_META_KEY] as ExecutionRecord;
export const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A test suite whose gateway has these upstreams (the `mcpServers` of its file), once every one is ready. */
export async function startGatewaySuite(servers: Record<string, unknown>): Promise<{ t: TestSuite; stop(): Promise<void> }> {
  const file = writeUpstreamsFile(servers);
  const t = await startTestSuite({ SUITE_MCP_UPSTREAMS: file.path });
  const stop = async () => {
    await t.stop();
    file.cleanup();
  };
  await waitForUpstreams(t).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { t, stop };
}
