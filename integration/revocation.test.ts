import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { ACTORS, call, mint, pollUntil, printOutputOnFailure, type Answer } from './helpers.ts';

/**
 * Revocation seen by every edge (DESIGN, "Tests"; spec, Errors: TOKEN_REVOKED "applies across
 * every service"): separate OS processes over the local NATS and Postgres, one actors process,
 * two token edges and a scheduler edge. A token revoked through one edge is refused by all of them.
 */
vi.setConfig({ testTimeout: 30_000, hookTimeout: 90_000 });

const REFUSAL_BOUND_MS = 1000;
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors', roles: ACTORS },
      { name: 'token-1', roles: ['edge:token'] },
      { name: 'token-2', roles: ['edge:token'] },
      { name: 'scheduler', roles: ['edge:scheduler'] },
    ],
    stalenessMs: 3000,
  });
});
afterAll(async () => {
  await cluster?.stop();
});
printOutputOnFailure(() => cluster?.output() ?? '');

interface Probe {
  readonly name: string;
  readonly url: string;
}

/** Every protected route the token may call, on every edge process. */
function probes(): Probe[] {
  const token = (name: string): Probe[] => [
    { name: `${name} GET /audit?limit=1`, url: cluster.process(name).url('token', '/audit?limit=1') },
    { name: `${name} GET /capabilities`, url: cluster.process(name).url('token', '/capabilities') },
  ];
  return [
    ...token('token-1'),
    ...token('token-2'),
    { name: 'scheduler GET /capabilities', url: cluster.process('scheduler').url('scheduler', '/capabilities') },
  ];
}

const refused = (a: Answer) => a.status === 401 && a.code === 'TOKEN_REVOKED';

describe('revocation across separate edge processes', () => {
  test('a token minted on one token edge is accepted by every edge, with its subject and scope', async () => {
    const t = await mint(cluster.process('token-1').url('token'), cluster.adminKey, 'agent-accepted', ['audit:read']);
    for (const p of probes()) {
      const a = await call(p.url, { token: t.token });
      expect({ probe: p.name, status: a.status }).toEqual({ probe: p.name, status: 200 });
      if (p.name.endsWith('/capabilities')) {
        expect(a.body).toMatchObject({ sub: 'agent-accepted', scope: ['audit:read'] });
      }
    }
  });

  test('a token revoked through the second token edge is refused with TOKEN_REVOKED by every edge within a second', async () => {
    const t = await mint(cluster.process('token-1').url('token'), cluster.adminKey, 'agent-revoked', ['audit:read']);
    const all = probes();
    for (const p of all) expect({ probe: p.name, status: (await call(p.url, { token: t.token })).status }).toEqual({ probe: p.name, status: 200 });

    const sent = performance.now();
    const revoke = await call(cluster.process('token-2').url('token', '/auth/token/revoke'), {
      adminKey: cluster.adminKey,
      body: { jti: t.jti },
    });
    const answered = performance.now();
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ revoked: true, jti: t.jti });

    // Each edge is polled on its own, every 10 ms, from the moment the revoke was answered.
    const times = await Promise.all(
      all.map(async (p) => {
        const ms = await pollUntil(
          `${p.name} refuses the revoked token`,
          async () => {
            const a = await call(p.url, { token: t.token });
            return { done: refused(a), seen: { status: a.status, code: a.code } };
          },
          { timeoutMs: REFUSAL_BOUND_MS, intervalMs: 10, since: answered },
        );
        return [p.name, ms] as const;
      }),
    );
    const slowest = Math.max(...times.map(([, ms]) => ms));
    process.stdout.write(
      `revocation: revoke answered in ${Math.round(answered - sent)} ms; refused by every edge ${slowest} ms later ` +
        `(${times.map(([n, ms]) => `${n}: ${ms} ms`).join(', ')})\n`,
    );
    expect(slowest).toBeLessThanOrEqual(REFUSAL_BOUND_MS);

    // Refused for good, not flapping back.
    for (const p of all) expect({ probe: p.name, refused: refused(await call(p.url, { token: t.token })) }).toEqual({ probe: p.name, refused: true });
  });

  test('revoking one token leaves another token of the same subject accepted everywhere', async () => {
    const edge1 = cluster.process('token-1').url('token');
    const kept = await mint(edge1, cluster.adminKey, 'agent-twice', ['audit:read']);
    const gone = await mint(edge1, cluster.adminKey, 'agent-twice', ['audit:read']);
    const revoke = await call(cluster.process('token-2').url('token', '/auth/token/revoke'), { adminKey: cluster.adminKey, body: { token: gone.token } });
    expect(revoke.status).toBe(200);
    for (const p of probes()) {
      await pollUntil(
        `${p.name} refuses the revoked token`,
        async () => {
          const a = await call(p.url, { token: gone.token });
          return { done: refused(a), seen: { status: a.status, code: a.code } };
        },
        { timeoutMs: REFUSAL_BOUND_MS },
      );
      expect({ probe: p.name, status: (await call(p.url, { token: kept.token })).status }).toEqual({ probe: p.name, status: 200 });
    }
  });
});
