import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createBus, createMemoryNetwork, type Bus, type Caller } from '../../bus/index.ts';
import { readSection } from '../../config/index.ts';
import { createOutboundGuard, outboundPolicy, type OutboundGuard } from '../../actors/outbound/index.ts';
import { storageKinds, type TestStorage } from '../../testing/storage.ts';
import { startTargetServer, type TargetServer } from '../../testing/target-server.ts';
import { benchService } from './index.ts';
import { benchConfig } from './config.ts';
import { BenchRunnerActor } from './runner.ts';
import { MAX_ATTEMPTS } from './job-pump.ts';
import { benchSubjects } from './subjects.ts';
import { claimJob, getJob, insertJob } from './store.ts';

const ADMIN: Caller = { kind: 'admin', sub: 'test', scope: [] };
// Short leases, so a dead runner's job is taken again within the test; long enough that a runner
// renewing every third of it is never overtaken on a busy PGlite.
const LEASE_MS = 1500;
const settings = readSection(benchConfig, { SUITE_BENCH_LEASE_MS: String(LEASE_MS), SUITE_BENCH_POLL_MS: '50' }).bench;
const logger = pino({ level: 'silent' });

describe.each(storageKinds())('bench runners on $kind', ({ open }) => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function setup(policy = outboundPolicy({ allowList: undefined, distributed: false, production: false })) {
    const db: TestStorage = await open({ migrationSets: [benchService.migrations!] });
    cleanup.push(() => db.dispose());
    const network = createMemoryNetwork();
    const buses: Bus[] = [];
    const busOf = () => {
      const bus = createBus(network.connect(), { requestTimeoutMs: 5000 });
      buses.push(bus);
      return bus;
    };
    cleanup.push(() => Promise.all(buses.map((b) => b.drain())).then(() => undefined));
    const guards: OutboundGuard[] = [];
    cleanup.push(() => Promise.all(guards.map((g) => g.close())).then(() => undefined));
    const runner = (holder: string) => {
      const guard = createOutboundGuard({ policy });
      guards.push(guard);
      const actor = new BenchRunnerActor({ bus: busOf(), storage: db.storage, logger, holder, settings, guard });
      actor.start();
      cleanup.push(() => actor.stop());
      return actor;
    };
    const client = busOf();
    const server = await startTargetServer({ delayMs: 1 });
    cleanup.push(() => server.close());
    /** A job put straight in the table, as a submit would, with no runner up yet. */
    const insert = async (testRuns: number) => {
      const id = `bench_${randomBytes(16).toString('hex')}`;
      await insertJob(db.storage.pool, {
        id,
        tenantId: null,
        createdBy: 'test',
        name: null,
        provider: 'http',
        model: null,
        target: server.url,
        request: { url: server.url },
        settings: { testRuns, warmupRuns: 0, concurrency: 1 },
      });
      return id;
    };
    const submit = async (testRuns: number, target: TargetServer | string = server) => {
      const r = await client.request(benchSubjects.submit, {
        provider: 'http',
        url: typeof target === 'string' ? target : target.url,
        testRuns,
        warmupRuns: 0,
        concurrency: 1,
        caller: ADMIN,
      });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.jobId;
    };
    const finished = async (jobId: string, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const job = await getJob(db.storage.pool, jobId, { all: true });
        if (job?.status === 'succeeded' || job?.status === 'failed') return job;
        if (Date.now() > until) throw new Error(`job ${jobId} is still ${job?.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    return { db, runner, client, server, submit, insert, finished };
  }

  it('runs each job once with three runners sharing the jobs', async () => {
    const s = await setup();
    s.runner('r1');
    s.runner('r2');
    s.runner('r3');
    const ids = await Promise.all(Array.from({ length: 6 }, () => s.submit(10)));
    const jobs = await Promise.all(ids.map((id) => s.finished(id)));
    expect(jobs.map((j) => j.status)).toEqual(Array(6).fill('succeeded'));
    expect(jobs.map((j) => j.attempts)).toEqual(Array(6).fill(1));
    expect(s.server.hits()).toBe(60);
  });

  it('takes again, from the start, a job whose runner died', async () => {
    const s = await setup();
    const resumed = await s.insert(5);
    // A runner claims the job and dies: it never renews its lease.
    expect((await claimJob(s.db.storage.pool, 'dead-1', LEASE_MS, MAX_ATTEMPTS))?.id).toBe(resumed);
    s.runner('alive');
    const job = await s.finished(resumed);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2, progress: { done: 5, total: 5 } });
    expect(job.result?.succeeded).toBe(5);
  });

  it('fails a job whose runner died on its last attempt, never leaving it running', async () => {
    const s = await setup();
    const lost = await s.insert(5);
    await claimJob(s.db.storage.pool, 'dead-1', 1, MAX_ATTEMPTS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await claimJob(s.db.storage.pool, 'dead-2', 1, MAX_ATTEMPTS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    s.runner('alive');
    const job = await s.finished(lost);
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('RUNNER_LOST');
    expect(s.server.hits()).toBe(0);
  });

  it('gives its job back when it stops, and another runner finishes it', async () => {
    const s = await setup();
    const slow = await startTargetServer({ delayMs: 20 });
    cleanup.push(() => slow.close());
    const first = s.runner('first');
    const id = await s.submit(40, slow);
    while ((await getJob(s.db.storage.pool, id, { all: true }))?.status !== 'running') await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    await first.stop();
    expect((await getJob(s.db.storage.pool, id, { all: true }))?.status).toBe('queued');
    s.runner('second');
    const job = await s.finished(id);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(job.result?.succeeded).toBe(40);
  });

  it('fails a job whose target the outbound policy refuses, without one connection to it', async () => {
    const s = await setup(outboundPolicy({ allowList: undefined, distributed: true, production: false }));
    s.runner('r1');
    // A name, so the URL rules pass at submit; the guard refuses the address it resolves to.
    const id = await s.submit(5, s.server.url.replace('127.0.0.1', 'localhost'));
    const job = await s.finished(id);
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('OUTBOUND_REFUSED');
    expect(job.error?.message).not.toContain('127.0.0.1');
    expect(s.server.hits()).toBe(0);
  });
});
