import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { meterUsage, openStorage } from '../storage/index.ts';
import { periodOf } from '../core/tenancy/index.ts';
import { ACTORS, errorCode, mint, printOutputOnFailure } from './helpers.ts';

/**
 * Tenancy across processes (issue 4): one actors process and two token edges over the local NATS
 * and Postgres. The quota holds across edges (exactly the quota accepted however the calls
 * interleave), and a key rotated or a tenant suspended through one edge is refused by the other
 * on the very next call.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let cluster: LocalCluster;
let edges: [string, string];
beforeAll(async () => {
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors', roles: ACTORS },
      { name: 'token-1', roles: ['edge:token'] },
      { name: 'token-2', roles: ['edge:token'] },
    ],
    stalenessMs: 3000,
  });
  edges = [cluster.process('token-1').url('token'), cluster.process('token-2').url('token')];
});
afterAll(async () => {
  await cluster?.stop();
});
printOutputOnFailure(() => cluster?.output() ?? '');

interface Reply {
  status: number;
  body: any;
  code: string | undefined;
}

async function http(url: string, o: { body?: unknown; adminKey?: string; token?: string; tenantKey?: string; method?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.adminKey !== undefined) headers['x-suite-admin-key'] = o.adminKey;
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.tenantKey !== undefined) headers['x-suite-tenant-key'] = o.tenantKey;
  const res = await fetch(url, {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  const body = text === '' ? undefined : JSON.parse(text);
  return { status: res.status, body, code: errorCode(body) };
}

async function createTenant(name: string): Promise<{ id: string; apiKey: string }> {
  const a = await http(`${edges[0]}/admin/tenants`, { adminKey: cluster.adminKey, body: { name } });
  expect(a.status).toBe(201);
  return a.body;
}

describe('tenancy across two edge processes', () => {
  test('quota Q plus N concurrent validations through both edges: exactly Q accepted', async () => {
    const quota = 40;
    const extra = 120;
    const tenant = await createTenant('racer');
    // This month's validations used up to Q below the free plan's 10,000, as earlier calls would have.
    const storage = await openStorage({ databaseUrl: cluster.databaseUrl });
    try {
      const seeded = await meterUsage(storage.pool, {
        tenantId: tenant.id,
        period: periodOf(Date.now()),
        metric: 'validations',
        amount: 10_000 - quota,
        limit: 10_000,
      });
      expect(seeded).toBe(10_000 - quota);
    } finally {
      await storage.close();
    }
    const { token } = await mint(edges[0], cluster.adminKey, 'validator', ['auth:token:validate']);
    // Both edges warm (connections open, token verified once), so neither starts the race behind.
    for (const edge of edges) expect((await http(`${edge}/auth/token/validate`, { token, body: { token } })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: quota + extra }, (_, i) => http(`${edges[i % 2]}/auth/token/validate`, { token, tenantKey: tenant.apiKey, body: { token } })),
    );
    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const perEdge = [0, 1].map((e) => answers.filter((a, i) => i % 2 === e && a.status === 200).length);
    console.log(`quota race across two edges: ${JSON.stringify(Object.fromEntries(byStatus))}; accepted per edge ${perEdge.join(' + ')}`);
    expect(byStatus.get(200)).toBe(quota);
    expect(byStatus.get(402)).toBe(extra);
    expect(answers.filter((a) => a.status === 402).every((a) => a.code === 'QUOTA_EXCEEDED')).toBe(true);
    const usage = await http(`${edges[1]}/usage`, { tenantKey: tenant.apiKey });
    expect(usage.body.usage.validations).toBe(10_000);
    expect(usage.body.quotas).toContainEqual({ metric: 'validations', limit: 10_000, used: 10_000, remaining: 0 });
  });

  test('a key rotated through edge 1 is refused by edge 2 on the next call, and the new key works there', async () => {
    const tenant = await createTenant('rotating');
    expect((await http(`${edges[1]}/usage`, { tenantKey: tenant.apiKey })).status).toBe(200);
    const rotated = await http(`${edges[0]}/admin/tenants/${tenant.id}/rotate-key`, { adminKey: cluster.adminKey, method: 'POST' });
    expect(rotated.status).toBe(200);
    const old = await http(`${edges[1]}/usage`, { tenantKey: tenant.apiKey });
    expect({ status: old.status, code: old.code }).toEqual({ status: 401, code: 'TENANT_KEY_INVALID' });
    const oldOnToken = await http(`${edges[1]}/auth/token`, {
      adminKey: cluster.adminKey,
      tenantKey: tenant.apiKey,
      body: { sub: 'a', scope: ['audit:read'] },
    });
    expect({ status: oldOnToken.status, code: oldOnToken.code }).toEqual({ status: 401, code: 'TENANT_KEY_INVALID' });
    expect((await http(`${edges[1]}/usage`, { tenantKey: rotated.body.apiKey })).status).toBe(200);
  });

  test('a tenant suspended through edge 1 is refused by edge 2 on the next call', async () => {
    const tenant = await createTenant('suspended');
    const suspended = await http(`${edges[0]}/admin/tenants/${tenant.id}/status`, {
      adminKey: cluster.adminKey,
      body: { status: 'suspended', reason: 'test' },
    });
    expect(suspended.status).toBe(200);
    const refused = await http(`${edges[1]}/usage`, { tenantKey: tenant.apiKey });
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 403, code: 'TENANT_SUSPENDED' });
  });
});
