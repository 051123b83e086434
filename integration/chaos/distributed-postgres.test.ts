import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Child } from '../../compose/child.ts';
import { ACTORS, call, mint, printOutputOnFailure, type Answer } from '../helpers.ts';
import { NATS_URL } from '../../testing/bus.ts';
import { runLoad, startSuiteProcess, tally, type Load } from '../../testing/chaos-suite.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../../testing/private-postgres.ts';
import { expectLogIntact } from '../../testing/log-fsck.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Distributed mode (actors and the token edge in two processes over NATS, Postgres by URL), its
 * Postgres killed (kill -9) under load on every kind of route, then started again: every answer is
 * a 2xx or a 503, never a 500 (issue 25, finding 2: `POST /executions` with an `Idempotency-Key`
 * answered 500 when the key's look-up found no database); a 503 that may have written says so and
 * names the key to retry with; everything resumes by itself (docs/ERRORS.md, docs/RELIABILITY.md).
 */
const repo = new URL('../..', import.meta.url).pathname;
const children: Child[] = [];
let postgres: PrivatePostgres | undefined;
afterAll(async () => {
  for (const c of children.reverse()) await c.stop();
  await postgres?.destroy();
});
printOutputOnFailure(() =>
  children
    .map((c) => c.output())
    .join('\n')
    .slice(-8000),
);

const RECORD = { subject: 'chaos-recorder', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, output: { ok: true }, outcome: 'success' };

describe('Postgres killed in distributed mode', () => {
  it("answers 503 and never 500 on every route while it is down, says when a write's outcome is unknown, and resumes by itself", {
    timeout: machineTimeout(90_000),
  }, async () => {
    postgres = await startPrivatePostgres();
    const env = {
      SUITE_NATS_URL: NATS_URL,
      SUITE_BUS_NAMESPACE: `chaos${randomBytes(4).toString('hex')}`,
      SUITE_DATABASE_URL: postgres.url,
      SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
      SUITE_ADMIN_KEY: randomBytes(24).toString('hex'),
    };
    const actors = new Child({
      name: 'actors',
      args: ['cli/suite.ts', 'run', ...ACTORS],
      cwd: repo,
      env: { ...process.env, NODE_OPTIONS: '', SUITE_LOG_LEVEL: 'warn', ...env } as Record<string, string>,
    });
    children.push(actors);
    const edge = await startSuiteProcess('edge', ['run', 'edge:token'], env);
    children.push(edge.child);
    const base = edge.base;
    // Ready once the actors answer over NATS (the revocation view synced).
    while ((await call(`${base}/ready`).catch(() => undefined))?.status !== 200) {
      expect(actors.running, 'the actors exited').toBe(true);
      await new Promise((r) => setTimeout(r, 100));
    }
    const adminKey = env.SUITE_ADMIN_KEY;
    const caller = await mint(base, adminKey, 'chaos-caller', ['auth:token:validate']);
    const recorder = await mint(base, adminKey, 'chaos-recorder', ['execution:record']);
    const reader = await mint(base, adminKey, 'chaos-reader', ['execution:read']);

    const examples = new Map<string, Answer>();
    const keep = (name: string) => (a: Answer) => {
      if (a.status >= 500 && !examples.has(`${name} ${a.status}`)) examples.set(`${name} ${a.status}`, a);
    };
    let n = 0;
    const loads: Record<string, Load> = {
      'POST /executions (Idempotency-Key)': runLoad(
        3,
        () => `${base}/executions`,
        () => ({ token: recorder.token, body: RECORD, headers: { 'idempotency-key': `chaos-${++n}` } }),
        keep('append'),
      ),
      'POST /auth/token/validate': runLoad(
        2,
        () => `${base}/auth/token/validate`,
        () => ({ token: caller.token, body: { token: recorder.token } }),
        keep('validate'),
      ),
      'POST /auth/token': runLoad(
        1,
        () => `${base}/auth/token`,
        () => ({ adminKey, body: { sub: 'chaos-issued', scope: ['crm:read'] } }),
        keep('issue'),
      ),
      'GET /audit': runLoad(
        1,
        () => `${base}/audit?limit=5`,
        () => ({ adminKey }),
        keep('audit'),
      ),
      'GET /executions': runLoad(
        1,
        () => `${base}/executions?limit=5`,
        () => ({ token: reader.token }),
        keep('list'),
      ),
    };
    const appends = loads['POST /executions (Idempotency-Key)'] as Load;
    try {
      while ((appends.statuses.get(201) ?? 0) < 50) await new Promise((r) => setTimeout(r, 20));
      const killedAt = Date.now();
      await postgres.kill();
      // Down long enough for every route to be refused a few times.
      const answeredSince = () => Object.values(loads).map((l) => [...l.statuses.values()].reduce((a, b) => a + b, 0));
      const atKill = answeredSince();
      while (answeredSince().some((count, i) => count - (atKill[i] as number) < 8)) await new Promise((r) => setTimeout(r, 50));
      const restartAt = Date.now();
      await postgres.start();
      let recoveredAt = appends.firstAfter(201, restartAt);
      while (recoveredAt === undefined) {
        await new Promise((r) => setTimeout(r, 20));
        recoveredAt = appends.firstAfter(201, restartAt);
      }
      for (const l of Object.values(loads)) await l.stop();

      const summary = Object.entries(loads)
        .map(([name, l]) => `${name} ${tally(l)}`)
        .join('; ');
      console.info(`[chaos distributed] down ${restartAt - killedAt} ms; first 201 append ${recoveredAt - restartAt} ms after the restart; ${summary}`);
      for (const [name, l] of Object.entries(loads)) {
        expect(l.statuses.get(500) ?? 0, `${name}: ${tally(l)} ${JSON.stringify(examples.get(`${name} 500`)?.body ?? '')}`).toBe(0);
        expect(
          [...l.statuses.keys()].filter((s) => s !== 'error' && s >= 500 && s !== 503),
          `${name}: ${tally(l)}`,
        ).toEqual([]);
        // No answer at all (a time-out of 10 s, a reset) is a failure too: the edge is up, only its database is down.
        expect(l.statuses.get('error') ?? 0, `${name}: ${tally(l)}`).toBe(0);
      }
      // The kill took effect: appends, which cannot succeed without the database, were refused.
      expect(appends.statuses.get(503) ?? 0, `appends: ${tally(appends)}`).toBeGreaterThan(0);
      for (const [name, a] of examples) expect(a.code, `${name}: ${JSON.stringify(a.body)}`).toBe('SERVICE_UNAVAILABLE');
      // A refused append that may have been carried out names the key to retry with.
      const unknown = [...examples.values()].map((a) => JSON.stringify(a.body)).filter((b) => b.includes('outcome is unknown'));
      for (const body of unknown) expect(body).toMatch(/Idempotency-Key|Idempotency-Key: "chaos-\d+"|without an Idempotency-Key/);
      await expectLogIntact({ base, token: reader.token, databaseUrl: postgres.url });
    } finally {
      for (const l of Object.values(loads)) await l.stop();
    }
  });
});
