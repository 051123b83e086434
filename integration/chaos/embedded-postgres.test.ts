import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, mint, printOutputOnFailure } from '../helpers.ts';
import { runLoad, startSuiteProcess, tally, type SuiteProcess, postmasterPid } from '../../testing/chaos-suite.ts';
import { expectLogIntact, servedCheckpoint } from '../../testing/log-fsck.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * kill -9 of the embedded Postgres under load (`suite start --data-dir`): the suite restarts it by
 * itself (`/ready` 503 meanwhile) and appends resume; then a second kill, and a SIGTERM while the
 * database is down. After a restart on the same folder, the audit entry of every validation that
 * was answered 200 is in the chain: none lost (issue 25, finding 1; docs/RELIABILITY.md).
 */
const dirs: string[] = [];
const running: SuiteProcess[] = [];
afterAll(async () => {
  for (const s of running) await s.child.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
});
printOutputOnFailure(() =>
  running
    .map((s) => s.child.output())
    .join('\n')
    .slice(-8000),
);

/** Entries of `subject` with result allow, as GET /audit counts them (admin key: its reads are not the subject's). */
async function allowsOf(base: string, adminKey: string, subject: string): Promise<number> {
  const a = await call(`${base}/audit?subject=${subject}&result=allow&limit=1`, { adminKey });
  if (a.status !== 200) throw new Error(`GET /audit answered ${a.status} ${JSON.stringify(a.body)}`);
  return (a.body as { total: number }).total;
}

const RECORD = { subject: 'chaos-recorder', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, output: { ok: true }, outcome: 'success' };

describe('the embedded Postgres killed under load', () => {
  it('is restarted by the suite, appends resume by themselves, and no answered decision loses its audit entry across a SIGTERM during the outage', {
    timeout: machineTimeout(90_000),
  }, async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-chaos-embedded-')), 'data');
    dirs.push(dataDir);
    let suite = await startSuiteProcess('suite', ['start', '--data-dir', dataDir], {});
    running.push(suite);
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const caller = await mint(suite.base, adminKey, 'chaos-caller', ['auth:token:validate']);
    const validated = await mint(suite.base, adminKey, 'chaos-validated', ['crm:read']);
    const recorder = await mint(suite.base, adminKey, 'chaos-recorder', ['execution:record']);

    let acked = 0;
    const validations = runLoad(
      6,
      () => `${suite.base}/auth/token/validate`,
      () => ({ token: caller.token, body: { token: validated.token } }),
      (a) => {
        if (a.status === 200 && (a.body as { valid?: boolean }).valid === true) acked++;
      },
    );
    const appends = runLoad(
      2,
      () => `${suite.base}/executions`,
      () => ({ token: recorder.token, body: RECORD }),
    );
    const readiness = runLoad(
      1,
      () => `${suite.base}/ready`,
      () => ({}),
    );
    try {
      while (acked < 200) await new Promise((r) => setTimeout(r, 20));
      const logBefore = await servedCheckpoint(suite.base);
      const killedAt = Date.now();
      process.kill(await postmasterPid(dataDir), 'SIGKILL');
      // Recovered: an append answered 201 after the first one refused (the postmaster's backends
      // outlive it for a moment, so appends already under way may still commit just after the kill).
      const refusedAt = () => appends.firstAfter(503, killedAt);
      const recovered = () => appends.firstAfter(201, refusedAt() ?? Number.POSITIVE_INFINITY);
      let recoveredAt = recovered();
      while (recoveredAt === undefined) {
        expect(suite.child.running, 'the suite exited instead of restarting its database').toBe(true);
        await new Promise((r) => setTimeout(r, 20));
        recoveredAt = recovered();
      }
      expect(readiness.firstAfter(503, killedAt), '/ready never answered 503 while the database was down').toBeDefined();
      const recoveryMs = recoveredAt - killedAt;

      // Second kill, and a SIGTERM while the database is down: the suite stops within its grace time.
      const before = acked;
      while (acked < before + 100) await new Promise((r) => setTimeout(r, 20));
      process.kill(await postmasterPid(dataDir), 'SIGKILL');
      suite.child.signal('SIGTERM');
      const exit = await suite.child.exited();
      await validations.stop();
      await appends.stop();
      await readiness.stop();
      expect(exit.code, 'exit code after SIGTERM').toBe(0);
      expect(validations.statuses.get(500) ?? 0, `validations: ${tally(validations)}`).toBe(0);
      expect(appends.statuses.get(500) ?? 0, `appends: ${tally(appends)}`).toBe(0);

      // The next start on the folder commits what the journal kept; every acked decision is there.
      suite = await startSuiteProcess('suite-again', ['start', '--data-dir', dataDir], {});
      running.push(suite);
      let present = 0;
      let edgePresent = 0;
      for (let i = 0; i < 200 && (present < acked || edgePresent < acked); i++) {
        [present, edgePresent] = [await allowsOf(suite.base, adminKey, 'chaos-validated'), await allowsOf(suite.base, adminKey, 'chaos-caller')];
        if (present < acked || edgePresent < acked) await new Promise((r) => setTimeout(r, 50));
      }
      const verify = await call(`${suite.base}/audit/verify`, { adminKey, timeoutMs: 30_000 });
      console.info(
        `[chaos embedded] acked ${acked}, present ${present} (edge ${edgePresent}), lost ${Math.max(0, acked - present)}; ` +
          `recovery (kill -9 to first 201 append) ${recoveryMs} ms; validations ${tally(validations)}; appends ${tally(appends)}; ready ${tally(readiness)}`,
      );
      expect(present).toBeGreaterThanOrEqual(acked);
      expect(edgePresent).toBeGreaterThanOrEqual(acked);
      expect(verify.status).toBe(200);
      expect(verify.body).toMatchObject({ valid: true });
      await expectLogIntact({ base: suite.base, token: (await mint(suite.base, adminKey, 'log-auditor', ['execution:read'])).token, since: [logBefore] });
    } finally {
      await Promise.all([validations.stop(), appends.stop(), readiness.stop()]);
    }
  });

  it('exits non-zero with one message naming the cause when its database cannot be restarted, rather than answering 503 for good', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-chaos-embedded-')), 'data');
    dirs.push(dataDir);
    const suite = await startSuiteProcess('suite-doomed', ['start', '--data-dir', dataDir], { SUITE_DB_RESTART_ATTEMPTS: '2' });
    running.push(suite);
    // Postgres refuses to start on a cluster without PG_VERSION: every restart fails.
    const cluster = join(dataDir, 'database', 'postgres');
    await rename(join(cluster, 'PG_VERSION'), join(dataDir, 'PG_VERSION.aside'));
    process.kill(await postmasterPid(dataDir), 'SIGKILL');
    const exit = await suite.child.exited();
    expect(exit.code).toBe(1);
    const fatal = suite.child
      .output()
      .split('\n')
      .filter((l) => l.includes('could not be restarted'));
    expect(fatal, suite.child.output().slice(-3000)).toHaveLength(1);
    expect(fatal[0]).toContain(cluster);
    expect(fatal[0]).toContain('2 attempts');
  });
});
