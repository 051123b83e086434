import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { sql } from 'slonik';
import { createBus } from '../../bus/index.ts';
import { createMemoryNetwork } from '../../bus/index.ts';
import { openStorage, type Storage } from '../../storage/index.ts';
import { storageKinds, type StoragePlace } from '../../testing/storage.ts';
import { eventually } from '../../testing/http-target.ts';
import { machineTimeout } from '../../testing/machine-time.ts';
import type { AttemptResult } from './attempt.ts';
import { insertSchedule } from './schedule-store.ts';
import { claimTasks, getTask, type NewTask } from './task-store.ts';
import { insertTask } from './enqueue-store.ts';
import { ScheduleTicker } from './ticker.ts';
import { WorkerPool } from './workers.ts';

const MIGRATIONS = [{ name: 'scheduler', dir: new URL('./migrations/', import.meta.url) }];
const logger = pino({ level: 'silent' });
const owner = { jti: null, sub: 'replica-test', scope: [], proven: false, tenantId: null };
const retry = { maxAttempts: 2, backoff: 'fixed' as const, baseDelay: 10 };
const newTask = (id: string, extra: Partial<NewTask> = {}): NewTask => ({
  namespace: '',
  id,
  priority: 'normal',
  task: { type: 'http', url: 'http://example.test/' },
  retry,
  timeoutMs: 100,
  owner,
  delayMs: 0,
  ...extra,
});

/**
 * A cron whose next real occurrence is 12 hours away (daily, UTC), for schedules the test brings
 * due itself. With '* * * * *' they also came due at the next real minute, claimed up to 2 s ahead
 * of it (FIRING_LOOKAHEAD_MS): a run that crossed a minute boundary made one more firing of every
 * schedule, so no schedule had `firings = round` any more and the wait for the round timed out.
 */
function notDueDuringTheTest(): { cron: string; timezone: string } {
  const away = new Date(Date.now() + 12 * 3_600_000);
  return { cron: `${away.getUTCMinutes()} ${away.getUTCHours()} * * *`, timezone: 'UTC' };
}

describe.each(storageKinds())('scheduler on $kind', ({ kind, place: makePlace }) => {
  let place: StoragePlace;
  // Two storages on one database stand for two replicas (Postgres: two pools; PGlite is one
  // session, so its "replicas" share it and the test shows the claim logic, not the locking).
  let a: Storage;
  let b: Storage;
  beforeAll(async () => {
    place = await makePlace();
    a = await openStorage({ ...place.options, migrationSets: MIGRATIONS });
    b = kind === 'postgres' ? await openStorage({ ...place.options, migrationSets: MIGRATIONS }) : a;
  }, machineTimeout(60_000));
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
    await place?.remove();
  });

  it(
    'fires each due firing of 200 schedules exactly once across two replicas racing for them, round after round',
    async () => {
      // Only the rounds below bring these schedules due (see notDueDuringTheTest).
      for (let i = 0; i < 200; i++) {
        await insertSchedule(a.pool, {
          namespace: '',
          id: `s${i}`,
          ...notDueDuringTheTest(),
          task: { type: 'http', url: 'http://example.test/' },
          retry,
          timeoutMs: 1000,
          owner,
          nextRunAt: null,
        });
      }
      const fired: number[] = [];
      const tickers = [a, b, a, b].map((storage) => new ScheduleTicker({ storage, logger, maxSleepMs: 5, onFired: (f) => fired.push(f.dueAt.length) }));
      for (const t of tickers) t.start();
      try {
        for (let round = 1; round <= 3; round++) {
          // A new occurrence of every schedule comes due at once (as at the top of a minute).
          await a.pool.query(sql.unsafe`update scheduler_schedules set next_run_at = now() - make_interval(mins => ${10 - round})`);
          await eventually(
            async () => (await a.pool.oneFirst(sql.unsafe`select count(*)::int from scheduler_schedules where firings = ${round}`)) === 200,
            `round ${round}`,
          );
        }
      } finally {
        await Promise.all(tickers.map((t) => t.stop()));
      }
      const firings = await a.pool.any(sql.unsafe`select firings from scheduler_schedules`);
      expect(firings.every((r) => (r as { firings: number }).firings === 3)).toBe(true);
      expect(await a.pool.oneFirst(sql.unsafe`select count(*)::int from scheduler_tasks where schedule_id is not null`)).toBe(600);
      expect(fired.reduce((x, y) => x + y, 0)).toBe(600);
    },
    machineTimeout(60_000),
  );

  it('enqueues a firing up to the lookahead before it is due, runnable only at its due time', async () => {
    await a.pool.query(sql.unsafe`delete from scheduler_tasks`);
    // Due 1.5 s ahead, inside the 2 s lookahead (FIRING_LOOKAHEAD_MS). Times are read from the
    // database clock, the one the claim compares with, never assumed from how long a step took.
    const dueAt = new Date(Date.now() + 1500).toISOString();
    await insertSchedule(a.pool, {
      namespace: '',
      id: 'ahead',
      ...notDueDuringTheTest(),
      task: { type: 'http', url: 'http://example.test/' },
      retry,
      timeoutMs: 1000,
      owner,
      nextRunAt: dueAt,
    });
    const ticker = new ScheduleTicker({ storage: a, logger, maxSleepMs: 5, onFired: () => {} });
    ticker.start();
    const dbNow = async () => Number(await a.pool.oneFirst(sql.unsafe`select (extract(epoch from clock_timestamp()) * 1000)::float8`));
    try {
      await eventually(
        async () => (await a.pool.oneFirst(sql.unsafe`select count(*)::int from scheduler_tasks where schedule_id = 'ahead'`)) === 1,
        'the firing enqueued',
      );
      const runAfter = Number(
        await a.pool.oneFirst(sql.unsafe`select (extract(epoch from run_after) * 1000)::float8 from scheduler_tasks where schedule_id = 'ahead'`),
      );
      expect(runAfter).toBe(Date.parse(dueAt));
      const early = await claimTasks(a.pool, 'early-worker', 10, 1000);
      // A claim that ended before the due time took nothing (on a machine so slow that the claim
      // came after it, this step shows nothing; the one below still holds).
      if ((await dbNow()) < runAfter) expect(early).toEqual([]);
      while ((await dbNow()) < runAfter) await new Promise((r) => setTimeout(r, 20));
      const onTime = await claimTasks(a.pool, 'on-time-worker', 10, 1000);
      expect(early.length + onTime.length).toBe(1);
    } finally {
      await ticker.stop();
    }
  });

  it('answers full at the configured queue length, and duplicate for an id taken', async () => {
    await a.pool.query(sql.unsafe`delete from scheduler_tasks`);
    const far = { delayMs: 3_600_000 };
    expect((await insertTask(a.pool, newTask('q1', far), { total: 2, perTenant: 10 })).outcome).toBe('inserted');
    expect((await insertTask(a.pool, newTask('q1', far), { total: 2, perTenant: 10 })).outcome).toBe('duplicate');
    expect((await insertTask(a.pool, newTask('q2', far), { total: 2, perTenant: 10 })).outcome).toBe('inserted');
    expect((await insertTask(a.pool, newTask('q3', far), { total: 2, perTenant: 10 })).outcome).toBe('full');
    expect(await getTask(a.pool, '', 'q3')).toBeNull();
  });

  it('takes back the task of a worker that died mid-task and completes it once; a task that kills every worker ends dead', async () => {
    await a.pool.query(sql.unsafe`delete from scheduler_tasks`);
    await insertTask(a.pool, newTask('orphan'), { total: 100, perTenant: 100 });
    await insertTask(a.pool, newTask('poison', { retry: { ...retry, maxAttempts: 1 } }), { total: 100, perTenant: 100 });
    // A worker claims both, then dies: it never ends them. Its lease runs out after timeout + 50 ms.
    expect(await claimTasks(a.pool, 'dead-worker', 10, 50)).toHaveLength(2);

    const runs: string[] = [];
    const run = async (task: unknown): Promise<AttemptResult> => {
      runs.push(JSON.stringify(task));
      return { outcome: 'success', retryable: false, status: 200, durationMs: 1, error: null, output: {} };
    };
    const bus = createBus(createMemoryNetwork().connect());
    const pool = new WorkerPool({ bus, storage: b, logger, holder: 'live-worker', slots: 2, pollMs: 10, leaseMarginMs: 50, run, random: () => 0.5 });
    pool.start();
    try {
      // Until the dead worker's leases have run out by the database clock (what reclaim compares).
      const leased = sql.unsafe`select count(*)::int from scheduler_tasks where state = 'running' and lease_until >= now()`;
      while (Number(await a.pool.oneFirst(leased)) > 0) await new Promise((r) => setTimeout(r, 20));
      await pool.reclaim();
      const orphan = await eventually(async () => {
        const t = await getTask(a.pool, '', 'orphan');
        return t?.state === 'succeeded' ? t : undefined;
      }, 'the orphan to complete');
      expect(orphan.attempts).toBe(2);
      expect(await getTask(a.pool, '', 'poison')).toMatchObject({ state: 'dead', attempts: 1, lastError: expect.stringContaining('stopped answering') });
      await new Promise((r) => setTimeout(r, 100));
      expect(runs).toHaveLength(1);
    } finally {
      await pool.stop();
      await bus.drain();
    }
  });
});
