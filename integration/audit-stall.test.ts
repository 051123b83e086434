import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { sql } from 'slonik';
import { afterEach, describe, expect, it } from 'vitest';
import { PORT_VARIABLES, SERVICES } from '../config/index.ts';
import { loadConfig } from '../services/index.ts';
import { startSuite, type RunningSuite } from '../cli/runtime.ts';
import { parseRoles } from '../cli/roles.ts';
import { createTestDatabase, type TestDatabase } from '../testing/storage.ts';
import { call, mint, pollUntil } from './helpers.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * When the audit chain cannot take entries (here its table is renamed away, so every commit fails),
 * the suite must say so and must not lie: /ready turns 503 naming `audit` and `chains`, bearer
 * tokens are refused rather than served unaudited, an issue is refused at once rather than after
 * the bus timeout, and a revocation that took effect is answered as done. Once the table is back
 * the backlog drains and everything recovers by itself. At shutdown, pending entries are waited for
 * within the grace time, and what could not be committed is logged, never silently dropped.
 */
interface Running {
  suite: RunningSuite;
  adminKey: string;
  lines: Array<Record<string, unknown>>;
  url(path: string): string;
}

async function start(env: Record<string, string>): Promise<Running> {
  const adminKey = `stall-admin-${randomBytes(6).toString('hex')}`;
  const config = loadConfig({
    SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
    SUITE_ADMIN_KEY: adminKey,
    SUITE_LOG_LEVEL: 'info',
    ...Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0'])),
    ...env,
  });
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const suite = await startSuite(config, parseRoles([]), pino({ level: 'info' }, sink));
  const port = suite.edges.find((e) => e.service === 'token')?.port;
  return { suite, adminKey, lines, url: (path) => `http://127.0.0.1:${port}${path}` };
}

const renameAudit = (from: string, to: string) => sql.unsafe`alter table ${sql.identifier([from])} rename to ${sql.identifier([to])}`;

let running: Running | undefined;
let db: TestDatabase | undefined;
afterEach(async () => {
  await running?.suite.stop();
  running = undefined;
  await db?.drop();
  db = undefined;
});

describe('a stalled audit trail', () => {
  it('turns /ready 503, refuses bearer tokens and issues at once, answers a revocation as done, and recovers once the trail takes entries again', {
    timeout: machineTimeout(60_000),
  }, async () => {
    running = await start({});
    const r = running;
    const pool = r.suite.storage!.pool;
    const victim = await mint(r.url(''), r.adminKey, 'stall-victim', ['audit:read']);
    const bystander = await mint(r.url(''), r.adminKey, 'stall-bystander', ['audit:read']);
    await pool.query(renameAudit('audit_entries', 'audit_entries_away'));

    const started = performance.now();
    const revoked = await call(r.url('/auth/token/revoke'), { adminKey: r.adminKey, body: { jti: victim.jti } });
    expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 200, body: { revoked: true, jti: victim.jti } });
    expect(performance.now() - started).toBeLessThan(2_500);
    expect((await call(r.url('/audit'), { token: victim.token })).code).toBe('TOKEN_REVOKED');

    // The sink's oldest entry and the writer's first failed commit both pass 10 s, a moment apart.
    await pollUntil(
      '/ready turns 503 for the audit sink and the chain writer',
      async () => {
        const ready = await call(r.url('/ready'));
        const checks = (ready.body as { checks?: Record<string, boolean> }).checks;
        return { done: ready.status === 503 && checks?.audit === false && checks.chains === false, seen: ready.body };
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect((await call(r.url('/ready'))).body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', message: 'not ready: audit, chains' } });

    // Refused at once (the bus would have timed out after 5 s), and a token is refused rather than served unaudited.
    const issuing = performance.now();
    const reader = await call(r.url('/auth/token'), { adminKey: r.adminKey, body: { sub: 'stall-reader', scope: ['audit:read'] }, timeoutMs: 2_000 });
    expect({ code: reader.code, fast: performance.now() - issuing < 1_000 }).toEqual({ code: 'SERVICE_UNAVAILABLE', fast: true });
    const served = await call(r.url('/capabilities'), { token: bystander.token });
    expect({ status: served.status, body: served.body }).toEqual({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'audit trail unavailable; try again shortly' } },
    });
    expect(r.lines.some((l) => l.msg === 'chain commit failed' && JSON.stringify(l.err).includes('audit_entries'))).toBe(true);

    await pool.query(renameAudit('audit_entries_away', 'audit_entries'));
    await pollUntil('/ready turns 200 again', async () => (await call(r.url('/ready'))).status === 200, { timeoutMs: 20_000, intervalMs: 250 });
    const trail = await call(r.url('/audit?limit=500'), { adminKey: r.adminKey });
    const actions = (trail.body as { entries: Array<{ action: string; resource: string }> }).entries
      .filter((e) => e.resource === `token:${victim.jti}`)
      .map((e) => e.action);
    expect(actions).toContain('auth:token:revoke');
    expect((await call(r.url('/audit/verify'), { adminKey: r.adminKey })).body).toMatchObject({ valid: true });
  });

  it('at shutdown waits within the grace time for pending entries and commits them when the trail takes them', {
    timeout: machineTimeout(60_000),
  }, async () => {
    db = await createTestDatabase();
    running = await start({ SUITE_DATABASE_URL: db.url, SUITE_SHUTDOWN_GRACE_MS: '8000' });
    const r = running;
    const victim = await mint(r.url(''), r.adminKey, 'stall-victim', ['audit:read']);
    await r.suite.storage!.pool.query(renameAudit('audit_entries', 'audit_entries_away'));
    expect((await call(r.url('/auth/token/revoke'), { adminKey: r.adminKey, body: { jti: victim.jti } })).status).toBe(200);

    const stopping = r.suite.stop();
    running = undefined;
    // The trail comes back while shutdown waits for it (from outside: the suite's pool is closing).
    await pollUntil('shutdown waits for the audit entries', async () => r.lines.some((l) => l.msg === 'waiting for audit entries to be committed'), {
      timeoutMs: 5_000,
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('alter table audit_entries_away rename to audit_entries');
      await stopping;
      const { rows } = await client.query<{ n: string }>(`select count(*) as n from audit_entries where action = 'auth:token:revoke' and resource = $1`, [
        `token:${victim.jti}`,
      ]);
      expect(Number(rows[0]?.n)).toBe(1);
    } finally {
      await client.end();
    }
    expect(r.lines.some((l) => l.msg === 'audit entries committed')).toBe(true);
    expect(r.lines.some((l) => l.msg === 'audit entries not committed at shutdown')).toBe(false);
  });

  it('at shutdown logs, before the grace time ends, how many entries it could not commit and which', { timeout: machineTimeout(60_000) }, async () => {
    running = await start({ SUITE_SHUTDOWN_GRACE_MS: '5000' });
    const r = running;
    const victim = await mint(r.url(''), r.adminKey, 'stall-victim', ['audit:read']);
    await r.suite.storage!.pool.query(renameAudit('audit_entries', 'audit_entries_away'));
    expect((await call(r.url('/auth/token/revoke'), { adminKey: r.adminKey, body: { jti: victim.jti } })).status).toBe(200);
    const started = performance.now();
    await r.suite.stop();
    running = undefined;
    expect(performance.now() - started).toBeLessThan(5_000);
    const lost = r.lines.find((l) => l.msg === 'audit entries not committed at shutdown');
    expect(lost).toMatchObject({ level: 50, pending: expect.any(Number), first: { id: expect.stringMatching(/^aud_/) } });
    expect(lost?.pending as number).toBeGreaterThanOrEqual(1);
  });
});
