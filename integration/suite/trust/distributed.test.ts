import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { createTestDatabase, type TestDatabase } from '../../../testing/storage.ts';
import { NATS_URL } from '../../../testing/bus.ts';
import { caller, serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { eventually } from '../../../testing/http-target.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/**
 * Distributed mode: Postgres and NATS, the edges in one suite and the trust arbiter alone in
 * another, so that every trust answer crosses the broker and every query runs on Postgres.
 */
let database: TestDatabase;
let edges: TestSuite;
let arbiter: TestSuite;
let token: string;
let call: ReturnType<typeof caller>;
let trust: ServiceCall;

beforeAll(async () => {
  database = await createTestDatabase();
  const env = {
    SUITE_DATABASE_URL: database.url,
    SUITE_NATS_URL: NATS_URL,
    SUITE_BUS_NAMESPACE: `trust-${randomBytes(4).toString('hex')}`,
    SUITE_TRUST_STALL_MS: '1000',
  };
  const secret = randomBytes(32).toString('hex');
  edges = await startTestSuite({ ...env, SUITE_HMAC_SECRET: secret }, [
    'edge:token',
    'edge:trust',
    'actor:chain-writer',
    'actor:audit',
    'actor:executions',
    'actor:revocation',
    'actor:tokens',
  ]);
  arbiter = await startTestSuite({ ...env, SUITE_HMAC_SECRET: secret }, ['actor:trust']);
  call = caller(edges);
  token = (await edges.mint(['trust:*', 'execution:record'])).token;
  trust = serviceCaller(edges, 'trust', token);
}, machineTimeout(60_000));
afterAll(async () => {
  await edges?.stop();
  await arbiter?.stop();
  await database?.drop();
});

describe('the trust service in distributed mode (NATS, Postgres, the arbiter in its own suite)', () => {
  it('records an event proven by an execution, appeals it, and scores the agent', async () => {
    const recorded = await call('/executions', { token, body: { subject: 'bot', module: 'm', action: 'a', input: 1, outcome: 'success' } });
    const event = await trust('/events', { body: { subjectId: 'bot', kind: 'policy-violation', proof: { executionId: recorded.body.id } } });
    expect(event.status).toBe(201);
    const appeal = await trust(`/events/${event.body.id}/appeal`, { body: { reason: 'r' } });
    expect((await trust(`/events/${event.body.id}/appeal`, { body: { reason: 'again' } })).status).toBe(409);
    expect((await trust('/score/bot')).body.score).toBe(42);
    await trust(`/appeals/${appeal.body.id}/decide`, { body: { decision: 'upheld', reason: 'r' } });
    expect((await trust('/score/bot')).body.score).toBe(50);
    expect((await trust('/evidence/bot')).body.events).toHaveLength(1);
  });

  it('keeps contracts, disputes and grounding working across the broker', async () => {
    const c = await trust('/contracts', { body: { title: 't', agentId: 'bot', operatorId: 'op', terms: [{ id: 'a', text: 'b' }] } });
    await trust(`/contracts/${c.body.id}/breach`, { body: { party: 'operator', description: 'd' } });
    expect((await trust(`/contracts/${c.body.id}/health`)).body.failures.operator.total).toBe(1);
    expect((await trust(`/contracts/${c.body.id}/reinstate`, { body: { reason: 'r' } })).status).toBe(409);
    const d = await trust('/disputes', { body: { title: 't', question: 'q', irreversible: true, opinions: [{ participant: 'a', position: 'x' }] } });
    expect((await trust(`/disputes/${d.body.id}/arbitrate`, { body: {} })).body.state).toBe('escalated');
    expect((await trust('/verify', { body: { output: 'It cost 9 dollars.', sources: ['It cost 8 dollars.'] } })).body.signals[0].type).toBe(
      'number-not-in-sources',
    );
  });

  it('finds a cycle, a disagreement and a stall on Postgres', async () => {
    const root = await trust('/interactions', { body: { caller: 'a', callee: 'b', chainId: 'pg-chain', outcome: 'success' } });
    const pendingSentAt = Date.now();
    const back = await trust('/interactions', { body: { caller: 'b', callee: 'a', parentId: root.body.id, outcome: 'pending' } });
    await trust(`/interactions/${back.body.id}/observe`, { body: { observer: 'o1', outcome: 'success' } });
    await trust(`/interactions/${back.body.id}/observe`, { body: { observer: 'o2', outcome: 'failure' } });
    await trust(`/interactions/${back.body.id}/observe`, { body: { observer: 'o3', outcome: 'failure' } });
    // The stall shows once its window (1 s) has passed since the pending interaction: wait on it.
    const kinds = await eventually(async () => {
      const found = (await trust('/anomalies')).body.anomalies
        .filter((a: { chainId: string }) => a.chainId === 'pg-chain')
        .map((a: { kind: string }) => a.kind)
        .sort();
      return found.includes('stall') ? found : undefined;
    }, 'the stall');
    expect(Date.now() - pendingSentAt).toBeGreaterThanOrEqual(1000);
    expect(kinds).toEqual(['cycle', 'disagreement', 'stall']);
    const chain = await trust('/chains/pg-chain');
    expect(chain.body.anomalies.find((a: { kind: string }) => a.kind === 'disagreement').records).toHaveLength(4);
  });
});
