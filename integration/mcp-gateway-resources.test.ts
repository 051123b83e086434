import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hashCanonical, type ExecutionRecord } from '../core/chain/index.ts';
import type { TestSuite } from '../testing/suite.ts';
import { call } from '../testing/tenancy.ts';
import { NODE, SERVER_EVERYTHING } from '../testing/mcp-upstreams.ts';
import { connectMcp, startGatewaySuite, textOf, traceOf } from '../testing/mcp-gateway.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The upstreams' resources and prompts through the gateway (issue 27, item 2; docs/MCP.md,
 * "Resources and prompts"), with server-everything from npm over stdio: listed per token, URIs
 * namespaced and readable back, each read or get decided, audited and signed on the chain.
 */

const TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const DOC = 'demo://resource/static/document/architecture.md';
let t: TestSuite;
let suite: Awaited<ReturnType<typeof startGatewaySuite>> | undefined;
beforeAll(async () => {
  suite = await startGatewaySuite({
    everything: {
      command: NODE,
      args: [SERVER_EVERYTHING, 'stdio'],
      resourceScopes: { [TEMPLATE]: 'demo:read' },
      promptScopes: { 'simple-prompt': 'prompts:read' },
    },
  });
  t = suite.t;
}, machineTimeout(90_000));
afterAll(() => suite?.stop());

/** The hash of an answer as the upstream gave it: without what the gateway added to `_meta` (its trace, its quota). */
function hashOfAnswer(answer: Record<string, unknown>): string {
  const { _meta: meta, ...rest } = answer;
  const own = Object.entries((meta ?? {}) as Record<string, unknown>).filter(([key]) => !key.startsWith('agent-authority-suite/'));
  return hashCanonical(own.length > 0 ? { ...rest, _meta: Object.fromEntries(own) } : rest);
}

describe('upstream resources through the gateway', () => {
  it("lists an upstream's resources and templates under mcp+<server>: URIs, only to a token whose scopes grant them", async () => {
    const reader = await connectMcp(t, (await t.mint(['mcp:everything:resources:read'])).token);
    const uris = (await reader.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain(`mcp+everything:${DOC}`);
    expect(uris.every((u) => u.startsWith('mcp+everything:demo://'))).toBe(true);
    // The template the file gives its own scope is not this token's.
    expect((await reader.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).not.toContain(`mcp+everything:${TEMPLATE}`);
    await reader.close();
    const demo = await connectMcp(t, (await t.mint(['demo:read'])).token);
    expect((await demo.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([`mcp+everything:${TEMPLATE}`]);
    expect((await demo.listResources()).resources).toEqual([]);
    await demo.close();
    // Every tool of the server is not every resource: a tool scope has three segments, a resource's four.
    const tools = await connectMcp(t, (await t.mint(['mcp:everything:*'])).token);
    const none = await tools.listResources();
    expect(none.resources).toEqual([]);
    // The answer says why (issue 36): the resources exist, and the scope that would list them.
    const note = (none._meta as Record<string, { count: number; reason: string }> | undefined)?.['suite/hidden'];
    expect(note?.count).toBeGreaterThan(0);
    expect(note?.reason).toContain('mcp:<server>:resources:read');
    expect((await tools.listPrompts()).prompts).toEqual([]);
    await tools.close();
  });

  it('reads a resource back by its gateway URI, with a signed trace of what was asked and answered', async () => {
    const client = await connectMcp(t, (await t.mint(['mcp:everything:resources:read'], { sub: 'resource-reader' })).token);
    const read = await client.readResource({ uri: `mcp+everything:${DOC}` });
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri: `mcp+everything:${DOC}`, mimeType: 'text/markdown' });
    expect(String((read.contents[0] as { text: string }).text).length).toBeGreaterThan(100);
    const trace = traceOf(read);
    expect(trace).toMatchObject({
      subject: 'resource-reader',
      module: 'mcp:everything',
      action: 'resources/read',
      outcome: 'success',
      scope: ['mcp:everything:resources:read'],
    });
    expect(trace.inputHash).toBe(hashCanonical({ uri: DOC }));
    expect(trace.outputHash).toBe(hashOfAnswer(read));
    const verified = await call(t, '/executions/verify', { body: { record: trace } });
    expect(verified.body).toMatchObject({ valid: true });
    await client.close();
  });

  it("gives a URI its template's scope from the file, and refuses a read beyond the token's scopes, audited", async () => {
    const client = await connectMcp(t, (await t.mint(['demo:read'], { sub: 'template-reader' })).token);
    const read = await client.readResource({ uri: 'mcp+everything:demo://resource/dynamic/text/3' });
    expect(read.contents[0]).toMatchObject({ uri: 'mcp+everything:demo://resource/dynamic/text/3' });
    expect(traceOf(read)).toMatchObject({ action: 'resources/read', scope: ['demo:read'] });
    await expect(client.readResource({ uri: `mcp+everything:${DOC}` })).rejects.toThrow(
      /^MCP error -32001: CAPABILITY_INSUFFICIENT: token does not grant mcp:everything:resources:read$/,
    );
    const audit = await call(t, '/audit?subject=template-reader&result=deny&limit=50', { admin: true });
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resource: `mcp resources/read mcp+everything:${DOC}`,
          reason: 'CAPABILITY_INSUFFICIENT: token does not grant mcp:everything:resources:read',
        }),
      ]),
    );
    await client.close();
  });

  it("answers a URI of no upstream as invalid params, and the upstream's refusal as an error carrying the failure's trace", async () => {
    const client = await connectMcp(t, (await t.mint(['mcp:*:resources:read'])).token);
    await expect(client.readResource({ uri: 'mcp+nowhere:demo://x' })).rejects.toThrow(/-32602: unknown resource: mcp\+nowhere:demo:\/\/x/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/-32602: unknown resource/);
    const failed = await client
      .readResource({ uri: 'mcp+everything:demo://resource/static/document/absent.md' })
      .catch((e: unknown) => e as { code: number; message: string; data: { code: string; trace: ExecutionRecord } });
    expect(failed).toMatchObject({
      code: -32603,
      data: { code: 'PROVIDER_REJECTED', trace: { module: 'mcp:everything', action: 'resources/read', outcome: 'failure' } },
    });
    expect((failed as { message: string }).message).toMatch(/PROVIDER_REJECTED: upstream everything: /);
    await client.close();
  });

  it('announces resources/list_changed when the upstream adds a resource, which then lists and reads', async () => {
    const { token } = await t.mint(['mcp:everything:resources:read', 'mcp:everything:gzip-file-as-resource']);
    const client = await connectMcp(t, token);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    expect(client.getServerCapabilities()).toMatchObject({ resources: { listChanged: true }, prompts: { listChanged: true } });
    // The tool makes a session resource on the upstream, which tells the gateway its list changed.
    const made = (await client.callTool({
      name: 'everything__gzip-file-as-resource',
      arguments: { name: 'hello.txt.gz', data: 'data:text/plain,hello%20gateway', outputType: 'resourceLink' },
    })) as CallToolResult;
    expect(made.isError, textOf(made)).toBeFalsy();
    await changed;
    const uri = 'mcp+everything:demo://resource/session/hello.txt.gz';
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect((await client.readResource({ uri })).contents[0]).toMatchObject({ uri, mimeType: 'application/gzip' });
    await client.close();
  });
});

describe('upstream prompts through the gateway', () => {
  it("lists exactly the prompts a token's scopes grant, namespaced, and gets one with its arguments intact", async () => {
    const client = await connectMcp(t, (await t.mint(['mcp:everything:prompt:args-prompt'], { sub: 'prompt-getter' })).token);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['everything__args-prompt']);
    const args = { city: 'Saint-Étienne', state: 'Loire' };
    const got = await client.getPrompt({ name: 'everything__args-prompt', arguments: args });
    expect(JSON.stringify(got.messages)).toContain('Saint-Étienne, Loire');
    const trace = traceOf(got);
    expect(trace).toMatchObject({
      subject: 'prompt-getter',
      module: 'mcp:everything',
      action: 'prompts/get',
      outcome: 'success',
      scope: ['mcp:everything:prompt:args-prompt'],
    });
    expect(trace.inputHash).toBe(hashCanonical({ name: 'args-prompt', arguments: args }));
    expect(trace.outputHash).toBe(hashOfAnswer(got));
    await expect(client.getPrompt({ name: 'everything__simple-prompt' })).rejects.toThrow(/CAPABILITY_INSUFFICIENT: token does not grant prompts:read/);
    await expect(client.getPrompt({ name: 'everything__nope' })).rejects.toThrow(/-32602: unknown prompt: everything__nope/);
    await client.close();
    const overridden = await connectMcp(t, (await t.mint(['prompts:read'])).token);
    expect((await overridden.listPrompts()).prompts.map((p) => p.name)).toEqual(['everything__simple-prompt']);
    expect((await overridden.getPrompt({ name: 'everything__simple-prompt' })).messages).toHaveLength(1);
    await overridden.close();
  });
});
