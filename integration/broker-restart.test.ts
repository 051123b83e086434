import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { inherited, startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { NatsNode } from '../compose/nats-node.ts';
import { ACTORS, call, mint, pollUntil, printOutputOnFailure } from './helpers.ts';

/**
 * A broker restart (DESIGN, "Tests"): a small cluster on a private nats-server of its own, which is
 * killed and started again on the same port. While it is gone every edge fails closed (503
 * REVOCATION_UNAVAILABLE); once it is back they recover, and a revocation made afterwards reaches
 * every edge.
 */
vi.setConfig({ testTimeout: 45_000, hookTimeout: 90_000 });

const STALENESS_MS = 1000;
let store: string;
let broker: NatsNode | undefined;
let cluster: LocalCluster | undefined;

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'suite-broker-'));
  // -js with its own store: the same server flags as the shared test NATS. Its port is its own
  // choice (port 0), kept across the restart below.
  broker = new NatsNode({ name: 'nats-server', storeDir: store, env: inherited() });
  await broker.start();
  cluster = await startLocalCluster({
    natsUrl: broker.url,
    processes: [
      { name: 'actors', roles: ACTORS },
      { name: 'token', roles: ['edge:token'] },
      { name: 'scheduler', roles: ['edge:scheduler'] },
    ],
    stalenessMs: STALENESS_MS,
  });
});
afterAll(async () => {
  // Short grace: with the broker gone a suite process may not exit on SIGTERM at all (see report).
  await cluster?.stop(5000);
  await broker?.stop(5000);
  if (store) await rm(store, { recursive: true, force: true });
});
printOutputOnFailure(() => `${cluster?.output() ?? ''}\n${broker?.output() ?? ''}`);

describe('a NATS broker restart', () => {
  test('edges fail closed while the broker is down, recover when it is back, and then see new revocations everywhere', async () => {
    const c = cluster as LocalCluster;
    const tokenEdge = c.process('token').url('token');
    const ready = [`${tokenEdge}/ready`, c.process('scheduler').url('scheduler', '/ready')];
    const protectedRoutes = [`${tokenEdge}/capabilities`, `${tokenEdge}/audit?limit=1`, c.process('scheduler').url('scheduler', '/capabilities')];
    const before = await mint(tokenEdge, c.adminKey, 'agent-broker', ['audit:read']);
    const statuses = async (token: string) => (await Promise.all(protectedRoutes.map((u) => call(u, { token })))).map((a) => a.code ?? a.status);
    expect(await statuses(before.token)).toEqual([200, 200, 200]);

    const killed = performance.now();
    (broker as NatsNode).signal('SIGKILL');
    await (broker as NatsNode).exited();
    // The edges notice (their /ready turns 503) within the staleness bound plus a little...
    const noticedMs = await pollUntil(
      'every edge answers /ready 503',
      async () => {
        const answers = await Promise.all(ready.map((u) => call(u, { timeoutMs: 1000 })));
        return { done: answers.every((a) => a.status === 503), seen: answers.map((a) => a.status) };
      },
      { timeoutMs: STALENESS_MS + 1000, since: killed },
    );
    // ...and from then on every protected route refuses at once: fail closed, not a hang.
    for (const url of protectedRoutes) {
      const a = await call(url, { token: before.token, timeoutMs: 1000 });
      expect({ url, status: a.status, code: a.code }).toEqual({ url, status: 503, code: 'REVOCATION_UNAVAILABLE' });
    }

    const restarted = performance.now();
    await (broker as NatsNode).start();
    // Recovered: every edge ready and every protected route answering again.
    const meanwhile = new Set<string>();
    const recoveredMs = await pollUntil(
      'every edge is ready and accepts the token again',
      async () => {
        const answers = await Promise.all([...ready, ...protectedRoutes].map((u) => call(u, { token: before.token, timeoutMs: 6000 })));
        for (const a of answers) if (a.status !== 200) meanwhile.add(`${a.status} ${a.code ?? ''}`.trim());
        return { done: answers.every((a) => a.status === 200), seen: answers.map((a) => a.code ?? a.status) };
      },
      { timeoutMs: 15_000, since: restarted },
    );

    // The actors reconnected too: issuing and revoking work, and the revocation reaches every edge.
    const after = await mint(tokenEdge, c.adminKey, 'agent-after-restart', ['audit:read']);
    expect(await statuses(after.token)).toEqual([200, 200, 200]);
    const revoke = await call(`${tokenEdge}/auth/token/revoke`, { adminKey: c.adminKey, body: { jti: after.jti } });
    expect(revoke.body).toEqual({ revoked: true, jti: after.jti });
    const revokedAt = performance.now();
    const seenMs = await Promise.all(
      protectedRoutes.map((u) =>
        pollUntil(
          `${u} refuses the revoked token`,
          async () => {
            const a = await call(u, { token: after.token });
            return { done: a.status === 401 && a.code === 'TOKEN_REVOKED', seen: a.code ?? a.status };
          },
          { timeoutMs: 1000, intervalMs: 10, since: revokedAt },
        ),
      ),
    );
    expect(await statuses(before.token)).toEqual([200, 200, 200]);

    // The refusals made during the outage were audited by each edge, and reach the chain once it is back.
    const auditedMs = await pollUntil(
      'the outage refusals of both edges are in the audit chain',
      async () => {
        const page = await call(`${tokenEdge}/audit?result=deny&limit=500`, { adminKey: c.adminKey });
        const { entries = [] } = page.body as { entries?: Array<{ resource: string; reason: string }> };
        const services = new Set(entries.filter((e) => e.reason === 'REVOCATION_UNAVAILABLE').map((e) => e.resource.split(' ')[0]));
        return { done: services.has('token') && services.has('scheduler'), seen: [...services] };
      },
      { timeoutMs: 20_000, intervalMs: 200, since: restarted },
    );

    process.stdout.write(
      `broker restart: edges failed closed ${noticedMs} ms after the broker was killed; serving again ${recoveredMs} ms ` +
        `after it was restarted (answers meanwhile: ${[...meanwhile].join(', ') || 'none'}); ` +
        `a later revocation refused everywhere within ${Math.max(...seenMs)} ms; the outage's audit entries ` +
        `committed ${auditedMs} ms after the restart\n`,
    );
  });
});
