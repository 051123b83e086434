import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { startHttpTarget, eventually, type HttpTarget } from '../../testing/http-target.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
let target: HttpTarget;
let token: string;

beforeAll(async () => {
  t = await startTestSuite({ SCHEDULER_WORKERS: '1', SCHEDULER_POLL_MS: '20', SUITE_LOG_LEVEL: process.env.TEST_LOG ?? 'silent' });
  target = await startHttpTarget((hit, nth) => {
    if (hit.path.startsWith('/flaky') && nth <= 2) return { status: 503 };
    if (hit.path.startsWith('/slow')) return { status: 200, delayMs: 400 };
    if (hit.path.startsWith('/hang')) return { status: 200, delayMs: 5_000 };
    if (hit.path.startsWith('/missing')) return { status: 404 };
    return { status: 200 };
  });
  token = (await t.mint(['schedule:create', 'schedule:read', 'queue:write', 'queue:read', 'runtime:read', 'execution:read'])).token;
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  await target?.close();
});

async function call(path: string, init: { method?: string; body?: unknown; raw?: string; token?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? token}` };
  if (init.body !== undefined || init.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(t.url('scheduler', path), {
    method: init.method ?? (init.body === undefined && init.raw === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.raw !== undefined ? { body: init.raw } : init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const pool = () => t.suite.storage!.pool;
const httpTask = (path: string, extra: Record<string, unknown> = {}) => ({ type: 'http', url: `${target.url}${path}`, ...extra });
async function tracesOf(action: string) {
  const res = await fetch(t.url('token', `/executions?module=scheduler&action=${action}&limit=500`), { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { records: any[] }).records;
}
const settled = (id: string) =>
  eventually(async () => {
    const s = await call(`/queue/${id}/status`);
    return ['succeeded', 'failed', 'dead'].includes(s.body.state) ? s.body : undefined;
  }, `task ${id} to finish`);

describe('schedules', () => {
  it('creates a schedule (201 with its next run on the minute, not durable in memory), lists, pauses, resumes and deletes it', async () => {
    const created = await call('/schedule', {
      body: { id: 'nightly', cron: '*/5 * * * *', task: httpTask('/nightly', { headers: { authorization: 'Bearer secret' } }) },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 'nightly', nextRun: expect.stringMatching(/:[0-5][05]:00\.000Z$/), durable: false });
    expect(Date.parse(created.body.nextRun)).toBeGreaterThan(Date.now());

    const listed = await call('/schedule');
    const mine = listed.body.schedules.find((s: { id: string }) => s.id === 'nightly');
    expect(mine).toMatchObject({
      cron: '*/5 * * * *',
      state: 'active',
      nextRun: created.body.nextRun,
      retry: { maxAttempts: 3, backoff: 'exponential', baseDelay: 1000 },
      timeout: 30000,
    });
    expect(mine.task.headers).toEqual({ authorization: '[redacted]' });

    const paused = await call('/schedule/nightly/pause', { method: 'POST' });
    expect(paused.body).toMatchObject({ state: 'paused', nextRun: null });
    const resumed = await call('/schedule/nightly/resume', { method: 'POST' });
    expect(resumed.body).toMatchObject({ state: 'active', nextRun: created.body.nextRun });

    expect((await call('/schedule/nightly', { method: 'DELETE' })).body).toEqual({ id: 'nightly', deleted: true });
    expect((await call('/schedule/nightly', { method: 'DELETE' })).status).toBe(404);
    expect((await call('/schedule/nightly/pause', { method: 'POST' })).status).toBe(404);
  });

  it('answers 409 CONFLICT for an id already taken and keeps the first schedule', async () => {
    await call('/schedule', { body: { id: 'twice', cron: '0 * * * *', task: httpTask('/a') } });
    const again = await call('/schedule', { body: { id: 'twice', cron: '5 * * * *', task: httpTask('/b') } });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
    const listed = await call('/schedule');
    expect(listed.body.schedules.find((s: { id: string }) => s.id === 'twice').cron).toBe('0 * * * *');
  });

  it('reads the cron in the named IANA time zone', async () => {
    const created = await call('/schedule', { body: { id: 'berlin-nine', cron: '0 9 * * *', timezone: 'Asia/Kolkata', task: httpTask('/tz') } });
    expect(created.status).toBe(201);
    // 09:00 in Kolkata is 03:30 UTC.
    expect(created.body.nextRun).toMatch(/T03:30:00\.000Z$/);
  });

  it('fires a due schedule once, even after missing two hours of occurrences, and moves its next run past now', async () => {
    // Firings are claimed up to 2 s ahead: a schedule made just before a minute boundary would fire
    // at it as well as for the two hours this test makes it miss. Start clear of the boundary.
    const toBoundary = 60_000 - (Date.now() % 60_000);
    if (toBoundary < 5_000) await new Promise((r) => setTimeout(r, toBoundary + 1_000));
    await call('/schedule', { body: { id: 'catch-up', cron: '* * * * *', task: httpTask('/catch-up') } });
    await pool().query(sql.unsafe`update scheduler_schedules set next_run_at = now() - interval '2 hours' where id = 'catch-up'`);
    await eventually(() => target.hitsOn('/catch-up').length === 1, 'the firing');
    // Done catching up when the schedule's next run is past now (a firing's task is made in the
    // transaction that moves it) and each task it made has finished: then every hit it will make is in.
    await eventually(async () => {
      const { rows } = await pool().query(sql.unsafe`
        select (select next_run_at > now() from scheduler_schedules where id = 'catch-up') as moved,
               (select count(*) from scheduler_tasks where schedule_id = 'catch-up' and state not in ('succeeded', 'failed', 'dead')) as open`);
      const row = rows[0] as { moved: boolean; open: string | number };
      return row.moved && Number(row.open) === 0;
    }, 'the catch-up settled');
    const { rows: tasks } = await pool().query(sql.unsafe`select count(*) as n from scheduler_tasks where schedule_id = 'catch-up'`);
    expect(Number((tasks[0] as { n: string | number }).n)).toBe(1);
    expect(target.hitsOn('/catch-up')).toHaveLength(1);
    const s = (await call('/schedule')).body.schedules.find((x: { id: string }) => x.id === 'catch-up');
    expect(s.firings).toBe(1);
    expect(Date.parse(s.nextRun)).toBeGreaterThan(Date.now());
    expect(Date.parse(s.nextRun) - Date.now()).toBeLessThanOrEqual(60_000);
  });
});

describe('queue', () => {
  it("runs a task, answers its status with attempts and timings, and records the attempt as a signed trace in the owner's name", async () => {
    const queued = await call('/queue', { body: { id: 'one-shot', task: httpTask('/one', { method: 'POST', body: { hello: 'world' } }) } });
    expect(queued.status).toBe(201);
    expect(queued.body).toMatchObject({ id: 'one-shot', state: 'queued', priority: 'normal', attempts: 0, maxAttempts: 3 });
    const done = await settled('one-shot');
    expect(done).toMatchObject({
      state: 'succeeded',
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(target.hitsOn('/one')[0]).toMatchObject({ method: 'POST', body: '{"hello":"world"}' });
    const records = await tracesOf('http.POST');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ subject: 'test-agent', module: 'scheduler', action: 'http.POST', outcome: 'success', attested: { sub: 'test-agent' } });
    const verified = await fetch(t.url('token', '/executions/verify'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ record: records[0] }),
    });
    expect(((await verified.json()) as { valid: boolean }).valid).toBe(true);
  });

  it('retries a failing host with backoff until it answers, every attempt traced', async () => {
    const queued = await call('/queue', { body: { id: 'flaky', task: httpTask('/flaky'), retry: { maxAttempts: 4, backoff: 'fixed', baseDelay: 50 } } });
    expect(queued.status).toBe(201);
    const done = await settled('flaky');
    expect(done).toMatchObject({ state: 'succeeded', attempts: 3, lastStatus: 200 });
    expect(target.hitsOn('/flaky')).toHaveLength(3);
    const outcomes = (await tracesOf('http.GET')).filter((r: any) => r.outcome === 'failure' || r.outcome === 'success').length;
    expect(outcomes).toBeGreaterThanOrEqual(3);
  });

  it('fails a task at its last attempt, and does not retry a 404', async () => {
    await call('/queue', { body: { id: 'missing', task: httpTask('/missing') } });
    expect(await settled('missing')).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 404, lastError: 'HTTP 404' });
  });

  it('aborts an attempt at its timeout', async () => {
    await call('/queue', { body: { id: 'hang', task: httpTask('/hang'), timeout: 150, retry: { maxAttempts: 1 } } });
    expect(await settled('hang')).toMatchObject({ state: 'failed', attempts: 1, lastError: 'timed out after 150 ms' });
  });

  it('holds a delayed task back until its delay has passed', async () => {
    await call('/queue', { body: { id: 'later', delay: 700, task: httpTask('/later') } });
    const done = await settled('later');
    expect(Date.parse(done.startedAt) - Date.parse(done.createdAt)).toBeGreaterThanOrEqual(690);
  });

  it('runs waiting tasks by priority: high, then normal, then low', async () => {
    await call('/queue', { body: { id: 'blocker', task: httpTask('/slow') } });
    await eventually(async () => (await call('/queue/blocker/status')).body.state === 'running', 'the blocker to run');
    for (const p of ['low', 'normal', 'high']) await call('/queue', { body: { id: `prio-${p}`, priority: p, task: httpTask(`/prio/${p}`) } });
    await settled('prio-low');
    const order = target.hits.filter((h) => h.path.startsWith('/prio/')).map((h) => h.path);
    expect(order).toEqual(['/prio/high', '/prio/normal', '/prio/low']);
  });

  it('refuses a task aimed at the metadata address or a non-http scheme with 400, storing nothing', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'http://user:pw@example.com/']) {
      const r = await call('/queue', { body: { id: 'ssrf', task: { type: 'http', url } } });
      expect(r.status, url).toBe(400);
      expect(r.body.error.message).toMatch(/task\.url/);
    }
    expect((await call('/queue/ssrf/status')).status).toBe(404);
  });
});

describe('bad input', () => {
  it('answers 400 INVALID_REQUEST naming the field, and stores nothing', async () => {
    const before = { schedules: (await call('/schedule')).body.total, tasks: (await call('/queue')).body.total };
    const cases: Array<[string, { body?: unknown; raw?: string }, RegExp]> = [
      ['/schedule', { raw: '{"id": "x", ' }, /JSON|body/i],
      ['/schedule', { body: { id: 'x', cron: 5, task: httpTask('/x') } }, /cron/],
      ['/schedule', { body: { id: 'x', cron: 'every minute', task: httpTask('/x') } }, /cron/],
      ['/schedule', { body: { id: 'x', cron: '61 * * * *', task: httpTask('/x') } }, /cron/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', task: { type: 'ftp', url: 'x' } } }, /task/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', task: { type: 'http' } } }, /task\.url/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', task: { type: 'script', script: 'a.sh' } } }, /SCHEDULER_SCRIPT_ROOT/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', timezone: 'Nowhere/City', task: httpTask('/x') } }, /timezone/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', task: httpTask('/x'), retry: { maxAttempts: 0 } } }, /maxAttempts/],
      ['/schedule', { body: { id: '../x', cron: '* * * * *', task: httpTask('/x') } }, /id/],
      ['/schedule', { body: { cron: '* * * * *', task: httpTask('/x') } }, /id/],
      ['/queue', { body: { delay: -1, task: httpTask('/x') } }, /delay/],
      ['/queue', { body: { priority: 'urgent', task: httpTask('/x') } }, /priority/],
      ['/queue', { body: { task: httpTask('/x', { method: 'GET', body: 'x' }) } }, /task\.body/],
      ['/queue', { body: { task: httpTask('/x', { method: 'POST', body: { a: 'nul\u0000' } }) } }, /task[./]body/],
      ['/queue', { body: { task: httpTask('/x', { headers: { host: 'evil' } }) } }, /task\.headers/],
      ['/queue', { body: {} }, /task/],
      // Hostile input: NUL bytes, lone surrogates, long strings, deep nesting, prototype keys.
      ['/queue', { body: { task: httpTask('/nul\u0000') } }, /task\/url|task\.url/],
      ['/queue', { body: { task: httpTask('/lone\ud800') } }, /task\/url|task\.url/],
      ['/queue', { body: { task: { type: 'http', url: `http://x/${'a'.repeat(100_000)}` } } }, /task\/url/],
      ['/queue', { body: { task: httpTask('/x', { method: 'POST', body: JSON.parse('['.repeat(200) + ']'.repeat(200)) }) } }, /task[./]body/],
      ['/queue', { body: { task: httpTask('/x', { method: 'POST', body: { k: 'lone\udc00' } }) } }, /task[./]body/],
      ['/queue', { raw: '{"task":{"type":"http","url":"http://x/","__proto__":{"polluted":true}}}' }, /JSON|task/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *\u0000', task: httpTask('/x') } }, /cron/],
      ['/schedule', { body: { id: 'x', cron: '* * * * *', timezone: 'UTC\ud800', task: httpTask('/x') } }, /timezone/],
    ];
    for (const [path, init, message] of cases) {
      const r = await call(path, init);
      expect(r.status, JSON.stringify(init)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message, JSON.stringify(init)).toMatch(message);
    }
    expect((await call('/schedule')).body.total).toBe(before.schedules);
    expect((await call('/queue')).body.total).toBe(before.tasks);
  });

  it("requires the route's scope", async () => {
    const reader = (await t.mint(['queue:read'])).token;
    expect((await call('/queue', { body: { task: httpTask('/x') }, token: reader })).status).toBe(403);
    expect((await call('/schedule', { token: reader })).status).toBe(403);
  });
});

describe('runtime', () => {
  it('reports the outbound policy, workers, queue depth and breakers; logs events without header values', async () => {
    const h = await call('/runtime/health');
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({
      outboundPolicy: { source: 'embedded-default', allow: ['127.0.0.0/8', '::1/128'] },
      scripts: { enabled: false },
      workers: { slots: 1 },
      queue: { depth: { high: expect.any(Number), normal: expect.any(Number), low: expect.any(Number) }, maxLength: 10000 },
    });
    const logs = await call('/runtime/logs?limit=500');
    expect(logs.status).toBe(200);
    expect(logs.body.events.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs.body)).not.toContain('Bearer secret');
  });

  it('exposes attempts by outcome, queue depth by priority and firing lateness on /metrics', async () => {
    const text = await (await fetch(t.url('scheduler', '/metrics'))).text();
    expect(text).toMatch(/^scheduler_task_attempts_total\{outcome="success"\} [1-9]/m);
    expect(text).toMatch(/^scheduler_task_attempts_total\{outcome="failure"\} [1-9]/m);
    expect(text).toMatch(/^scheduler_queue_depth\{priority="high"\} \d+/m);
    expect(text).toMatch(/^scheduler_firing_lateness_seconds_count [1-9]/m);
  });
});
