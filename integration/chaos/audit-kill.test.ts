import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, mint, printOutputOnFailure } from '../helpers.ts';
import { runLoad, startSuiteProcess, tally, type SuiteProcess } from '../../testing/chaos-suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 34, item 1: the audit chain's inserts now follow the answers in batches (a decision is
 * durable once synced to the edge's journal). kill -9 of the whole embedded suite (its process
 * group: Node and its Postgres) while appends and validations are answered, twice; after each
 * restart on the same folder, the audit entry of every answered decision is in the chain, and the
 * chain verifies. An append's entry is committed with its record (the audit outbox): those the
 * killed edge had not yet sent reach the chain by the audit chain leader's sweep after the restart
 * (with the sweep off, 6 of 206 answered appends' entries were missing).
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

const RECORD = { subject: 'kill-recorder', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, output: { ok: true }, outcome: 'success' };

async function allowsOf(base: string, adminKey: string, subject: string): Promise<number> {
  const a = await call(`${base}/audit?subject=${subject}&result=allow&limit=1`, { adminKey });
  if (a.status !== 200) throw new Error(`GET /audit answered ${a.status} ${JSON.stringify(a.body)}`);
  return (a.body as { total: number }).total;
}

describe('the embedded suite killed right after answers', () => {
  it('keeps the audit entry of every answered append and validation across kill -9 of its process group', { timeout: machineTimeout(120_000) }, async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-audit-kill-')), 'data');
    dirs.push(dataDir);
    let suite = await startSuiteProcess('suite', ['start', '--data-dir', dataDir], {});
    running.push(suite);
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const recorder = await mint(suite.base, adminKey, 'kill-recorder', ['execution:record']);
    const caller = await mint(suite.base, adminKey, 'kill-caller', ['auth:token:validate']);
    const validated = await mint(suite.base, adminKey, 'kill-validated', ['crm:read']);
    let appended = 0;
    let validations = 0;
    for (let kill = 0; kill < 2; kill++) {
      const base = suite.base;
      const appends = runLoad(
        3,
        () => `${base}/executions`,
        () => ({ token: recorder.token, body: RECORD }),
        (a) => {
          if (a.status === 201) appended++;
        },
      );
      // One client one at a time beside three together: the coalescing window is open most of the time.
      const validates = runLoad(
        4,
        () => `${base}/auth/token/validate`,
        () => ({ token: caller.token, body: { token: validated.token } }),
        (a) => {
          if (a.status === 200 && (a.body as { valid?: boolean }).valid === true) validations++;
        },
      );
      const [a0, v0] = [appended, validations];
      while (appended < a0 + 100 || validations < v0 + 100) await new Promise((r) => setTimeout(r, 5));
      // Right after answers: the whole group, the suite and its Postgres, at once.
      process.kill(-(suite.child.pid as number), 'SIGKILL');
      await suite.child.exited();
      await Promise.all([appends.stop(), validates.stop()]);
      console.info(`[audit kill ${kill + 1}] appends ${tally(appends)}, validations ${tally(validates)}`);
      suite = await startSuiteProcess(`suite-${kill + 2}`, ['start', '--data-dir', dataDir], {});
      running.push(suite);
    }
    // The restarted suite commits what the journal kept; every answered decision is in the chain.
    const counts = async () => [
      await allowsOf(suite.base, adminKey, 'kill-recorder'),
      await allowsOf(suite.base, adminKey, 'kill-caller'),
      await allowsOf(suite.base, adminKey, 'kill-validated'),
    ];
    let [recorded, callers, validatedEntries] = await counts();
    for (let i = 0; i < 100 && (recorded! < appended || callers! < validations || validatedEntries! < validations); i++) {
      await new Promise((r) => setTimeout(r, 100));
      [recorded, callers, validatedEntries] = await counts();
    }
    console.info(
      `[audit kill] answered appends ${appended} (entries ${recorded}), validations ${validations} (caller entries ${callers}, token entries ${validatedEntries})`,
    );
    expect(recorded).toBeGreaterThanOrEqual(appended);
    expect(callers).toBeGreaterThanOrEqual(validations);
    expect(validatedEntries).toBeGreaterThanOrEqual(validations);
    const verify = await call(`${suite.base}/audit/verify`, { adminKey, timeoutMs: 30_000 });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ valid: true });
  });
});
