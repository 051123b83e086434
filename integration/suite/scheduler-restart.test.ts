import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { startHttpTarget, eventually, type HttpTarget } from '../../testing/http-target.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let folder: string;
let target: HttpTarget;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'scheduler-restart-'));
  target = await startHttpTarget();
});
afterAll(async () => {
  await target?.close();
  await rm(folder, { recursive: true, force: true });
});

async function call(t: TestSuite, token: string, path: string, body?: unknown) {
  const res = await fetch(t.url('scheduler', path), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const SCOPES = ['schedule:create', 'schedule:read', 'queue:write', 'queue:read'];

describe('a schedule across a restart', () => {
  it('is durable with a database folder, and fires on time again after the suite restarts', { timeout: machineTimeout(90_000) }, async () => {
    const env = { SUITE_DB_PATH: join(folder, 'db'), SUITE_HMAC_SECRET: 'r'.repeat(40) };
    const first = await startTestSuite(env);
    let token = (await first.mint(SCOPES)).token;
    const created = await call(first, token, '/schedule', { id: 'survivor', cron: '* * * * *', task: { type: 'http', url: `${target.url}/survivor` } });
    expect(created.body).toMatchObject({ id: 'survivor', durable: true });
    await first.stop();

    const second = await startTestSuite(env);
    try {
      token = (await second.mint(SCOPES)).token;
      const listed = await call(second, token, '/schedule');
      expect(listed.body.schedules.map((s: { id: string }) => s.id)).toEqual(['survivor']);
      // Bring its next run to now rather than waiting for the minute: the clock of the new process fires it.
      await second.suite.storage!.pool.query(sql.unsafe`update scheduler_schedules set next_run_at = now() where id = 'survivor'`);
      await eventually(() => target.hitsOn('/survivor').length === 1, 'the firing after the restart');
    } finally {
      await second.stop();
    }
  });
});

describe('the queue limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After once the queue holds its maximum, and stores nothing', { timeout: machineTimeout(60_000) }, async () => {
    const t = await startTestSuite({ SCHEDULER_QUEUE_MAX: '3' });
    try {
      const token = (await t.mint(SCOPES)).token;
      for (let i = 0; i < 3; i++) {
        expect((await call(t, token, '/queue', { id: `held-${i}`, delay: 3_600_000, task: { type: 'http', url: `${target.url}/held` } })).status).toBe(201);
      }
      const refused = await call(t, token, '/queue', { id: 'one-too-many', task: { type: 'http', url: `${target.url}/held` } });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(refused.headers.get('retry-after')).toBe('5');
      expect((await call(t, token, '/queue/one-too-many/status')).status).toBe(404);
    } finally {
      await t.stop();
    }
  });
});
