import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { fakeSlack, type FakeServer } from '../testing/fake-providers.ts';
import { ACTORS, mint, printOutputOnFailure } from './helpers.ts';

/**
 * The connector service distributed (issue 16): the spine in one process, the connectors actor in
 * another, the token and connector edges in a third, over the local NATS and Postgres. An action
 * sent to the edge runs in the actor's process and its trace is signed by the chain writer's.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const SLACK_TOKEN = 'xoxb-cluster-test-token';
let slack: FakeServer;
let cluster: LocalCluster;

beforeAll(async () => {
  slack = await fakeSlack(SLACK_TOKEN);
  cluster = await startLocalCluster({
    processes: [
      { name: 'spine', roles: ACTORS },
      { name: 'connectors', roles: ['actor:connectors'] },
      { name: 'edges', roles: ['edge:token', 'edge:connector'] },
    ],
    stalenessMs: 3000,
    // The fake Slack listens on loopback, which the distributed default refuses: allow exactly it.
    env: { CONNECTOR_SLACK_BOT_TOKEN: SLACK_TOKEN, CONNECTOR_SLACK_API_URL: `${slack.url}/api`, SUITE_OUTBOUND_ALLOW: '127.0.0.1/32' },
  });
});
afterAll(async () => {
  await cluster?.stop();
  await slack?.close();
});
printOutputOnFailure(() => cluster?.output() ?? '');

describe('connectors across processes', () => {
  test('an action through the edge process runs in the actor process and its trace verifies', async () => {
    const edges = cluster.process('edges');
    const { token } = await mint(edges.url('token'), cluster.adminKey, 'agent-x', ['connector:execute', 'connector:read']);
    const listed = (await (await fetch(edges.url('connector', '/connectors/slack'))).json()) as { configured: boolean };
    expect(listed.configured).toBe(true);
    const verify = await fetch(edges.url('connector', '/connectors/slack/verify'), { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(verify.status).toBe(200);
    const res = await fetch(edges.url('connector', '/connectors/slack/actions/post_message'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0SUITE01', text: 'from the cluster' }),
    });
    const body = (await res.json()) as { execution: { id: string; subject: string; action: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.execution).toMatchObject({ subject: 'agent-x', action: 'slack.post_message' });
    expect(slack.writes().map((c) => JSON.parse(c.body).text)).toEqual(['from the cluster']);
    const verdict = (await (
      await fetch(edges.url('token', '/executions/verify'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: body.execution.id }),
      })
    ).json()) as { valid: boolean };
    expect(verdict.valid).toBe(true);
  });

  test('with the connectors actor stopped, the edge answers 503 and the provider receives nothing', async () => {
    const edges = cluster.process('edges');
    const { token } = await mint(edges.url('token'), cluster.adminKey, 'agent-x', ['connector:execute']);
    await cluster.process('connectors').stop();
    const before = slack.calls.length;
    const res = await fetch(edges.url('connector', '/connectors/slack/actions/post_message'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0SUITE01', text: 'nobody home' }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(slack.calls.length).toBe(before);
  });
});
