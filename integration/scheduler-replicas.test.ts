import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import pg from 'pg';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { startHttpTarget, eventually, type HttpTarget } from '../testing/http-target.ts';
import { ACTORS, call, mint, printOutputOnFailure } from './helpers.ts';

/**
 * Two scheduler actor processes on one Postgres over real NATS (issue 14): every firing of 200
 * schedules runs once, round after round, and a worker process killed mid-task does not lose the
 * task: another replica takes it back after its lease and completes it once.
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });

const SCHEDULES = 200;
/** The first round is the real minute boundary after the schedules are made; the others are forced. */
const ROUNDS = 3;
let cluster: LocalCluster;
let target: HttpTarget;
let db: pg.Client;
let token: string;
let edge: string;

beforeAll(async () => {
  target = await startHttpTarget((hit) => (hit.path.startsWith('/slow') ? { status: 200, delayMs: 2500 } : { status: 200 }));
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors', roles: ACTORS },
      { name: 'sched-a', roles: ['actor:scheduler'] },
      { name: 'sched-b', roles: ['actor:scheduler'] },
      { name: 'edges', roles: ['edge:token', 'edge:scheduler'] },
    ],
    // The target listens on loopback, which the distributed default refuses.
    env: { SUITE_OUTBOUND_ALLOW: '127.0.0.1', SCHEDULER_POLL_MS: '50', SCHEDULER_LEASE_MARGIN_MS: '1000' },
  });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  edge = cluster.process('edges').url('scheduler');
  ({ token } = await mint(cluster.process('edges').url('token'), cluster.adminKey, 'replica-test', [
    'schedule:create',
    'schedule:read',
    'queue:write',
    'queue:read',
  ]));
});
afterAll(async () => {
  await db?.end();
  await cluster?.stop();
  await target?.close();
});
printOutputOnFailure(() => cluster?.output() ?? '');

describe('scheduler replicas', () => {
  test(`${SCHEDULES} schedules over at least ${ROUNDS} rounds: every firing runs once across two processes`, async () => {
    for (let i = 0; i < SCHEDULES; i++) {
      const r = await call(`${edge}/schedule`, {
        token,
        body: { id: `s${i}`, cron: '* * * * *', task: { type: 'http', url: `${target.url}/s/${i}` }, retry: { maxAttempts: 1 } },
      });
      expect(r.status).toBe(201);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // Round 1 waits for the next minute boundary, on the clock. Later rounds bring every schedule
      // due at once rather than waiting more minutes (a distinct due time per round).
      if (round > 1) await db.query(`update scheduler_schedules set next_run_at = now() - make_interval(mins => $1::int)`, [30 - round]);
      await eventually(() => target.hits.filter((h) => h.path.startsWith('/s/')).length >= SCHEDULES * round, `round ${round}`, round === 1 ? 90_000 : 30_000);
    }
    // Stop the clock (every schedule fires each minute), let the queue drain, then compare: each
    // schedule's firings (claims) = its tasks (one per due time) = the calls the target received.
    await db.query(`update scheduler_schedules set state = 'paused', next_run_at = null`);
    await eventually(
      async () => (await db.query(`select count(*)::int as n from scheduler_tasks where state in ('queued', 'running', 'retrying')`)).rows[0].n === 0,
      'the queue to drain',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    const perSchedule = new Map<string, number>();
    for (const h of target.hits.filter((x) => x.path.startsWith('/s/')))
      perSchedule.set(`s${h.path.slice(3)}`, (perSchedule.get(`s${h.path.slice(3)}`) ?? 0) + 1);
    const { rows } = await db.query(`
      select s.id, s.firings, count(t.id)::int as tasks, count(distinct t.due_at)::int as due_times,
        count(*) filter (where t.state = 'succeeded')::int as succeeded
      from scheduler_schedules s left join scheduler_tasks t on t.schedule_id = s.id group by s.id, s.firings`);
    expect(rows).toHaveLength(SCHEDULES);
    const mismatched = rows.filter(
      (r) => !(r.firings >= ROUNDS && r.tasks === r.firings && r.due_times === r.firings && r.succeeded === r.firings && perSchedule.get(r.id) === r.firings),
    );
    expect(mismatched.map((r) => ({ ...r, hits: perSchedule.get(r.id) }))).toEqual([]);
    const total = rows.reduce((n, r) => n + r.firings, 0);
    const events = await db.query(`select count(*)::int as n from scheduler_events where kind = 'schedule-fired'`);
    expect(events.rows[0].n).toBe(total);
    console.log(`scheduler replicas: ${total} firings of ${SCHEDULES} schedules, each run once`);
  });

  test('a worker process killed mid-task: another takes the task back after its lease and completes it once', async () => {
    const r = await call(`${edge}/queue`, {
      token,
      timeoutMs: 30_000,
      body: { id: 'survivor', task: { type: 'http', url: `${target.url}/slow` }, timeout: 4000 },
    });
    expect(r.status).toBe(201);
    const holder = await eventually(async () => {
      const { rows } = await db.query(`select leased_by from scheduler_tasks where id = 'survivor' and state = 'running'`);
      return rows[0]?.leased_by as string | undefined;
    }, 'the task to run');
    // Mid-task: the request has reached the target, which takes 2.5 s to answer.
    await eventually(() => target.hitsOn('/slow').length === 1, 'the first attempt to reach the target');
    const victim = ['sched-a', 'sched-b'].find((n) => holder.includes(`:${cluster.process(n).pid}:`));
    expect(victim, `holder ${holder}`).toBeDefined();
    cluster.process(victim!).signal('SIGKILL');
    const done = await eventually(
      async () => {
        const s = await call(`${edge}/queue/survivor/status`, { token, timeoutMs: 30_000 });
        // A request routed to the killed process in the moment it died waits out the bus timeout (503).
        return (s.body as { state: string }).state === 'succeeded' ? (s.body as { attempts: number }) : undefined;
      },
      'the task to complete on the other replica',
      30_000,
    );
    expect(done.attempts).toBe(2);
    await new Promise((r) => setTimeout(r, 1000));
    // The killed attempt reached the target; the answer went nowhere. The second completed it.
    expect(target.hitsOn('/slow')).toHaveLength(2);
  });
});
