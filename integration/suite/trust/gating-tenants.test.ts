import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { call, createTenant } from '../../../testing/tenancy.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let plain: string;
let tokenA: string;
let tokenB: string;

const proof = { url: 'https://example.org/evidence', sha256: createHash('sha256').update('evidence').digest('hex') };
const trust = (token: string, path: string, body?: unknown) => call(t, path, { service: 'trust', token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  t = await startTestSuite({ SUITE_TRUST_GATING: 'true', SUITE_TRUST_GATE_THRESHOLD: '45' });
  plain = (await t.mint(['trust:*'])).token;
  const mintFor = async (tenantKey: string) =>
    (await call(t, '/auth/token', { admin: true, tenantKey, body: { sub: 'tenant-agent', scope: ['trust:*'] } })).body.token as string;
  tokenA = await mintFor((await createTenant(t, { name: 'A' })).apiKey);
  tokenB = await mintFor((await createTenant(t, { name: 'B' })).apiKey);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('POST /score/{subjectId}/check with gating enabled by configuration', () => {
  it('lets the threshold decide and says why', async () => {
    await trust(plain, '/events', { subjectId: 'gated-good', kind: 'commitment-kept', proof });
    await trust(plain, '/events', { subjectId: 'gated-bad', kind: 'policy-violation', proof });
    const good = await trust(plain, '/score/gated-good/check', {});
    expect(good.body).toMatchObject({ allowed: true, gating: 'enabled', score: 53, threshold: 45, reason: 'score 53 meets the threshold 45' });
    const bad = await trust(plain, '/score/gated-bad/check', {});
    expect(bad.body).toMatchObject({ allowed: false, gating: 'enabled', score: 42, threshold: 45, reason: 'score 42 is below the threshold 45' });
  });

  it('does not gate a human, and does not allow an agent nothing is recorded about', async () => {
    await trust(plain, '/events', { subjectId: 'bob', subjectType: 'human', kind: 'complaint', proof });
    expect((await trust(plain, '/score/bob/check', {})).body).toMatchObject({ allowed: true, gating: 'enabled' });
    expect((await trust(plain, '/score/unknown-bot/check', {})).body).toMatchObject({ allowed: false, gating: 'enabled' });
  });
});

describe('tenant isolation', () => {
  it("a tenant's token reads only its tenant's records; another tenant's ids are not found", async () => {
    const event = await trust(tokenA, '/events', { subjectId: 'shared-name', kind: 'task-failed', proof });
    expect(event.status).toBe(201);
    const contract = await trust(tokenA, '/contracts', { title: 'c', agentId: 'bot-a', operatorId: 'op-a', terms: [{ id: 't', text: 'x' }] });
    const dispute = await trust(tokenA, '/disputes', { title: 'd', question: 'q', irreversible: false });
    const interaction = await trust(tokenA, '/interactions', { caller: 'x', callee: 'y', outcome: 'success', chainId: 'tenant-a-chain' });

    expect((await trust(tokenA, '/evidence/shared-name')).body.events).toHaveLength(1);
    // Tenant B sees no facts about tenant A's subject: an empty evidence, like any unknown subject.
    expect((await trust(tokenB, '/evidence/shared-name')).body).toMatchObject({ subjectType: null, events: [], breaches: [] });
    for (const path of [
      '/events/shared-name',
      '/score/shared-name',
      `/events/${event.body.id}/appeals`,
      `/contracts/${contract.body.id}`,
      `/contracts/${contract.body.id}/health`,
      `/disputes/${dispute.body.id}`,
      '/chains/tenant-a-chain',
    ]) {
      expect((await trust(tokenB, path)).status, path).toBe(404);
    }
    expect((await trust(tokenB, `/events/${event.body.id}/appeal`, { reason: 'x' })).status).toBe(404);
    expect((await trust(tokenB, `/interactions/${interaction.body.id}/observe`, { observer: 'o', outcome: 'failure' })).status).toBe(404);
    expect((await trust(tokenB, '/contracts')).body.contracts).toEqual([]);
    expect((await trust(tokenB, '/disputes')).body.disputes).toEqual([]);
    expect((await trust(tokenB, '/chains')).body.chains).toEqual([]);
    expect((await trust(tokenB, '/scores')).body.scores).toEqual([]);
    // The same subject name under tenant B is a different subject.
    await trust(tokenB, '/events', { subjectId: 'shared-name', kind: 'task-succeeded', proof });
    expect((await trust(tokenB, '/score/shared-name')).body.score).toBe(52);
    expect((await trust(tokenA, '/score/shared-name')).body.score).toBe(48);
  });
});
