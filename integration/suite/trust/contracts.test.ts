import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let trust: ServiceCall;

beforeAll(async () => {
  t = await startTestSuite();
  const { token } = await t.mint(['trust:*']);
  trust = serviceCaller(t, 'trust', token);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const contract = (agentId: string) => ({
  title: 'Invoice processing',
  agentId,
  operatorId: 'ops-team',
  terms: [
    { id: 'sla', text: 'Answer within 1 hour' },
    { id: 'data', text: 'Operator supplies clean input files' },
  ],
});

describe('trust rule 7: a breach by either party is recorded; an operator breach is never charged to the agent', () => {
  it("records breaches by both parties, charges only the agent's to its score, and health says whose fault each is", async () => {
    const c = await trust('/contracts', { body: contract('invoice-bot') });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ state: 'active', agentId: 'invoice-bot', operatorId: 'ops-team' });
    const byOperator = await trust(`/contracts/${c.body.id}/breach`, { body: { party: 'operator', term: 'data', description: 'input files were corrupt' } });
    expect(byOperator.status).toBe(201);
    expect((await trust('/score/invoice-bot')).body.score).toBe(50);
    const byAgent = await trust(`/contracts/${c.body.id}/breach`, { body: { party: 'agent', term: 'sla', description: 'answered after 3 hours' } });
    expect(byAgent.body).toMatchObject({ party: 'agent', state: 'open' });

    const score = await trust('/score/invoice-bot');
    expect(score.body.score).toBe(45);
    expect(score.body.excluded).toContainEqual(expect.objectContaining({ id: byOperator.body.id, reason: expect.stringMatching(/never charged/) }));
    const health = await trust(`/contracts/${c.body.id}/health`);
    expect(health.body).toMatchObject({
      state: 'active',
      failures: { agent: { total: 1, open: 1, remediated: 0 }, operator: { total: 1, open: 1, remediated: 0 }, total: 2 },
    });

    const remediated = await trust(`/breaches/${byAgent.body.id}/remediate`, { body: { remediation: 'added a queue alarm' } });
    expect(remediated.body).toMatchObject({ state: 'remediated', remediation: 'added a queue alarm' });
    expect((await trust('/score/invoice-bot')).body.score).toBe(48);
    const twice = await trust(`/breaches/${byAgent.body.id}/remediate`, { body: { remediation: 'again' } });
    expect(twice.status).toBe(409);
    expect((await trust(`/contracts/${c.body.id}`)).body.breaches).toHaveLength(2);

    // The operator is a subject with evidence (both breaches of its contract, whose fault each is) and no score.
    const evidence = await trust('/evidence/ops-team');
    expect(evidence.body).toMatchObject({ subjectType: 'organisation' });
    expect(evidence.body.breaches.map((b: { party: string }) => b.party)).toEqual(['operator', 'agent']);
    expect((await trust('/score/ops-team')).status).toBe(404);
  });
});

describe('contract states', () => {
  it('suspends an active contract and reinstates a suspended one; an illegal move is 409 with the states it needs', async () => {
    const c = await trust('/contracts', { body: contract('sched-bot') });
    const reinstate = await trust(`/contracts/${c.body.id}/reinstate`, { body: { reason: 'x' } });
    expect(reinstate.status).toBe(409);
    expect(reinstate.body.error.message).toBe(`contract ${c.body.id} is "active": reinstate needs it to be "suspended"`);
    const suspended = await trust(`/contracts/${c.body.id}/suspend`, { body: { reason: 'audit in progress' } });
    expect(suspended.body).toMatchObject({ state: 'suspended', stateReason: 'audit in progress' });
    expect((await trust(`/contracts/${c.body.id}/suspend`, { body: { reason: 'again' } })).status).toBe(409);
    expect((await trust(`/contracts/${c.body.id}/reinstate`, { body: { reason: 'audit done' } })).body.state).toBe('active');
    expect((await trust('/contracts')).body.contracts.map((x: { id: string }) => x.id)).toContain(c.body.id);
  });

  it('refuses bad bodies with 400 naming the field and answers 404 for unknown ids', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/contracts', { ...contract('x'), terms: [] }, /terms/],
      ['/contracts', { ...contract('x'), agentId: 'has space' }, /agentId/],
      ['/contracts', { ...contract('same'), operatorId: 'same' }, /operatorId/],
      [
        '/contracts',
        {
          ...contract('x'),
          terms: [
            { id: 'a', text: 'x' },
            { id: 'a', text: 'y' },
          ],
        },
        /terms/,
      ],
    ];
    for (const [path, body, message] of cases) {
      const r = await trust(path, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    const c = await trust('/contracts', { body: contract('strict-bot') });
    const badParty = await trust(`/contracts/${c.body.id}/breach`, { body: { party: 'nobody', description: 'x' } });
    expect(badParty.body.error.message).toMatch(/party/);
    const badTerm = await trust(`/contracts/${c.body.id}/breach`, { body: { party: 'agent', term: 'nope', description: 'x' } });
    expect(badTerm.status).toBe(400);
    expect(badTerm.body.error.message).toMatch(/\/term/);
    expect((await trust(`/contracts/${c.body.id}/health`)).body.failures.total).toBe(0);
    for (const path of ['/contracts/ctr_nope', '/contracts/ctr_nope/health']) expect((await trust(path)).status).toBe(404);
    expect((await trust('/contracts/ctr_nope/breach', { body: { party: 'agent', description: 'x' } })).status).toBe(404);
    expect((await trust('/contracts/ctr_nope/suspend', { body: { reason: 'x' } })).status).toBe(404);
    expect((await trust('/breaches/brc_nope/remediate', { body: { remediation: 'x' } })).status).toBe(404);
  });
});

describe('GET /obligations', () => {
  it('is public and says what the service promises and does not do', async () => {
    const r = await fetch(t.url('trust', '/obligations'));
    expect(r.status).toBe(200);
    const body = (await r.json()) as { promises: string[]; doesNot: string[] };
    expect(body.promises.some((p) => /operator is never charged/.test(p))).toBe(true);
    expect(body.doesNot.some((p) => /never a verdict/.test(p))).toBe(true);
  });
});
