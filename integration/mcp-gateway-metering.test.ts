import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { periodOf } from '../core/tenancy/index.ts';
import { meterUsage } from '../storage/index.ts';
import { QUOTA_META_KEY } from '../edge-mcp/index.ts';
import type { TestSuite } from '../testing/suite.ts';
import { call, createTenant, type CreatedTenant } from '../testing/tenancy.ts';
import { NODE, SERVER_MEMORY } from '../testing/mcp-upstreams.ts';
import { connectMcp, startGatewaySuite, textOf, traceOf } from '../testing/mcp-gateway.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Tenant metering of gateway calls (issue 27, "Tenant metering applies"; docs/MCP.md, "Metering"):
 * with `X-Suite-Tenant-Key`, each upstream call counts one `validations` unit of the tenant's plan,
 * taken before it is forwarded; over quota it is refused `QUOTA_EXCEEDED`, audited, not forwarded.
 * Against server-memory from npm, whose graph shows whether a call reached it.
 */

let t: TestSuite;
let suite: Awaited<ReturnType<typeof startGatewaySuite>> | undefined;
let memoryDir: string;
beforeAll(async () => {
  memoryDir = mkdtempSync(join(tmpdir(), 'mcp-gateway-memory-'));
  suite = await startGatewaySuite({ memory: { command: NODE, args: [SERVER_MEMORY], env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.jsonl') } } });
  t = suite.t;
}, machineTimeout(90_000));
afterAll(async () => {
  await suite?.stop();
  if (memoryDir !== undefined) rmSync(memoryDir, { recursive: true, force: true });
});

const usage = async (tenant: CreatedTenant) => (await call(t, '/usage', { tenantKey: tenant.apiKey })).body.usage as { validations: number; agents: number };
const entity = (name: string) => ({ entities: [{ name, entityType: 'note', observations: ['made through the gateway'] }] });
async function graphNames(token: string): Promise<string[]> {
  const client = await connectMcp(t, token);
  const graph = JSON.parse(textOf((await client.callTool({ name: 'memory__read_graph', arguments: {} })) as CallToolResult)) as {
    entities: Array<{ name: string }>;
  };
  await client.close();
  return graph.entities.map((e) => e.name);
}

describe('tenant metering of gateway calls', () => {
  it('counts one validations unit per upstream call made with a tenant key, its quota in _meta', async () => {
    const tenant = await createTenant(t);
    const issued = await call(t, '/auth/token', {
      admin: true,
      tenantKey: tenant.apiKey,
      body: { sub: 'metered-agent', scope: ['mcp:memory:*', 'execution:read'] },
    });
    const before = await usage(tenant);
    const client = await connectMcp(t, issued.body.token, { 'x-suite-tenant-key': tenant.apiKey });
    const made = (await client.callTool({ name: 'memory__create_entities', arguments: entity('alpha') })) as CallToolResult;
    expect(made.isError, textOf(made)).toBeFalsy();
    expect(made._meta?.[QUOTA_META_KEY]).toMatchObject({ metric: 'validations', limit: 10_000, remaining: 10_000 - before.validations - 1 });
    expect(traceOf(made)).toMatchObject({ module: 'mcp:memory', action: 'create_entities', attested: { tenantId: tenant.id } });
    // The suite's own tools count nothing (docs/MCP.md): only the gateway's forwarding is metered.
    expect((await client.callTool({ name: 'attention_list', arguments: {} })).isError).toBeFalsy();
    await client.close();
    expect(await usage(tenant)).toEqual({ ...before, validations: before.validations + 1 });
    // The same token without the key is unmetered (spec: limits apply only with a tenant key).
    await graphNames(issued.body.token);
    expect((await usage(tenant)).validations).toBe(before.validations + 1);
  });

  it('refuses a call over quota with QUOTA_EXCEEDED before it is forwarded, and audits the refusal', async () => {
    const tenant = await createTenant(t);
    await meterUsage(t.suite.storage!.pool, { tenantId: tenant.id, period: periodOf(Date.now()), metric: 'validations', amount: 10_000, limit: 10_000 });
    const { token } = await t.mint(['mcp:memory:*'], { sub: 'over-quota-agent' });
    const client = await connectMcp(t, token, { 'x-suite-tenant-key': tenant.apiKey });
    const refused = client.callTool({ name: 'memory__create_entities', arguments: entity('never-made') });
    await expect(refused).rejects.toThrow(/^MCP error -32001: QUOTA_EXCEEDED: the plan's monthly validations limit \(10000\) is reached; it resets at /);
    await expect(refused).rejects.toMatchObject({
      data: { code: 'QUOTA_EXCEEDED', requiredScope: 'mcp:memory:create_entities', quota: { metric: 'validations', limit: 10_000, remaining: 0 } },
    });
    await client.close();
    expect(await graphNames(token)).not.toContain('never-made');
    const audit = await call(t, '/audit?subject=over-quota-agent&result=deny&limit=50', { admin: true });
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resource: 'mcp tools/call memory__create_entities',
          reason: expect.stringMatching(/^QUOTA_EXCEEDED: the plan's monthly validations limit \(\d+\) is reached; it resets at /),
          tenantId: tenant.id,
        }),
      ]),
    );
    expect((await usage(tenant)).validations).toBe(10_000);
  });

  it("GET /mcp/calls shows a tenant's token its own tenant's calls only; the admin key and an untenanted token see every call", async () => {
    const [a, b] = [await createTenant(t), await createTenant(t)];
    const issue = async (tenant: CreatedTenant, sub: string, scope: string[]) =>
      (await call(t, '/auth/token', { admin: true, tenantKey: tenant.apiKey, body: { sub, scope } })).body.token as string;
    const client = await connectMcp(t, await issue(a, 'tenant-a-agent', ['mcp:memory:*']), { 'x-suite-tenant-key': a.apiKey });
    const made = (await client.callTool({ name: 'memory__create_entities', arguments: entity('tenant-a-only') })) as CallToolResult;
    await client.close();
    const traceA = String(traceOf(made).id);
    const traceIds = (body: unknown) => [
      ...(body as { recent: Array<{ traceId: string }> }).recent.map((r) => r.traceId),
      ...(body as { calls: Array<{ lastTraceId: string }> }).calls.map((c) => c.lastTraceId),
    ];
    const readerB = await issue(b, 'tenant-b-reader', ['gateway:read']);
    for (const asB of [await call(t, '/mcp/calls', { token: readerB }), await call(t, '/mcp/calls', { token: readerB, tenantKey: b.apiKey })]) {
      expect(asB.status).toBe(200);
      expect(traceIds(asB.body)).not.toContain(traceA);
      expect(asB.body).toMatchObject({ calls: [], recent: [] });
    }
    const readerA = await issue(a, 'tenant-a-reader', ['gateway:read']);
    expect(traceIds((await call(t, '/mcp/calls', { token: readerA })).body)).toContain(traceA);
    expect(traceIds((await call(t, '/mcp/calls', { admin: true })).body)).toContain(traceA);
    const untenanted = (await t.mint(['gateway:read'])).token;
    expect(traceIds((await call(t, '/mcp/calls', { token: untenanted })).body)).toContain(traceA);
  });

  it('refuses a session whose tenant key is unknown, as the HTTP edges do', async () => {
    const { token } = await t.mint(['mcp:memory:*']);
    await expect(connectMcp(t, token, { 'x-suite-tenant-key': 'tk_unknown' })).rejects.toThrow(/TENANT_KEY_INVALID/);
  });

  it("refuses a token issued under one tenant presented with another tenant's key", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const ofA = await call(t, '/auth/token', { admin: true, tenantKey: a.apiKey, body: { sub: 'agent-a', scope: ['mcp:memory:*'] } });
    // Refused by /mcp's own check before the session (an HTTP 403 in the error shape, issue 32).
    await expect(connectMcp(t, ofA.body.token, { 'x-suite-tenant-key': b.apiKey })).rejects.toThrow(
      /"code":"CAPABILITY_INSUFFICIENT","message":"the token was issued for another tenant/,
    );
  });
});
