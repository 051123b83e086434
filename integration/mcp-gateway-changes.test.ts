import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { freePort, startEverythingOverHttp, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The gateway's tool list follows its upstreams' (issue 27, item 2): an upstream that comes up
 * after the suite adds its tools, announced to connected clients by `notifications/tools/list_changed`
 * on the GET /mcp stream.
 */

let t: TestSuite;
let port: number;
let file: ReturnType<typeof writeUpstreamsFile>;
let late: Awaited<ReturnType<typeof startEverythingOverHttp>> | undefined;

beforeAll(async () => {
  port = await freePort();
  // Nothing listens there yet: the gateway keeps trying, with backoff, and the suite starts regardless.
  file = writeUpstreamsFile({ late: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
  t = await startTestSuite({ SUITE_MCP_UPSTREAMS: file.path });
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await late?.stop();
  file?.cleanup();
});

describe("the gateway's tool list when an upstream changes", () => {
  it('serves the suite while an upstream is down, then announces list_changed and lists its tools once it is up', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const { token } = await t.mint(['mcp:late:*', 'execution:read']);
    const client = new Client({ name: 'list-changed-test', version: '1.0.0' });
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(t.url('token', '/mcp')), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    expect(before).toContain('attention_list');
    expect(before.filter((n) => n.startsWith('late__'))).toEqual([]);
    const down = await (await fetch(t.url('token', '/mcp/upstreams'), { headers: { 'x-suite-admin-key': t.adminKey } })).json();
    expect(down).toMatchObject({ upstreams: [{ name: 'late', transport: 'http', state: expect.stringMatching(/^(down|connecting)$/), tools: 0 }] });

    late = await startEverythingOverHttp(port);
    await changed;
    const after = (await client.listTools()).tools.map((tool) => tool.name);
    expect(after).toEqual(expect.arrayContaining(['late__echo', 'late__get-sum', 'attention_list']));
    await client.close();
  });

  it('answers GET /mcp without a valid token in the error shape, opening no stream', async () => {
    const res = await fetch(t.url('token', '/mcp'), { headers: { accept: 'text/event-stream', authorization: 'Bearer not.a.token' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'TOKEN_INVALID' } });
  });
});
