import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, mint, printOutputOnFailure, type Answer } from '../helpers.ts';
import { startSuiteProcess, type SuiteProcess } from '../../testing/chaos-suite.ts';

/**
 * Issue 34, item 3: kill -9 of the embedded Postgres under appends, one client sending one at a time
 * and six at once, each append with its own Idempotency-Key. Every 5xx has the error shape, and every
 * one whose write in fact committed (a retry with the same key after recovery answers 200, the record
 * it made) said that the outcome is unknown and named that key: none answered "append failed" as if
 * nothing had been done (16 such answers were counted on main).
 */
const dirs: string[] = [];
const running: SuiteProcess[] = [];
afterAll(async () => {
  for (const s of running) await s.child.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
});
printOutputOnFailure(() => running.map((s) => s.child.output()).join('\n').slice(-8000));

const postmasterPid = async (dataDir: string) => Number((await readFile(join(dataDir, 'database', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
const RECORD = { subject: 'outcome-recorder', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, output: { ok: true }, outcome: 'success' };

interface Sent { key: string; answer: Answer | undefined; at: number }

describe('answers to appends while the embedded Postgres is killed', () => {
  it('name the outcome unknown and the Idempotency-Key of every append that may have committed, sequential and concurrent', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-outcome-')), 'data');
    dirs.push(dataDir);
    const suite = await startSuiteProcess('suite', ['start', '--data-dir', dataDir], {});
    running.push(suite);
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(suite.base, adminKey, 'outcome-recorder', ['execution:record']);

    const sent: Sent[] = [];
    let n = 0;
    let go = true;
    const append = async (): Promise<Sent> => {
      const key = `outcome-${n++}`;
      let answer: Answer | undefined;
      try {
        answer = await call(`${suite.base}/executions`, { token, body: RECORD, headers: { 'idempotency-key': key }, timeoutMs: 15_000 });
      } catch {
        answer = undefined;
      }
      const s = { key, answer, at: Date.now() };
      sent.push(s);
      return s;
    };
    // One client one at a time, six together.
    const clients = Array.from({ length: 7 }, async () => {
      while (go) if ((await append()).answer === undefined) await new Promise((r) => setTimeout(r, 20));
    });
    const created = () => sent.filter((s) => s.answer?.status === 201).length;
    try {
      for (let kill = 0; kill < 2; kill++) {
        const before = created();
        while (created() < before + 150) await new Promise((r) => setTimeout(r, 20));
        const killedAt = Date.now();
        process.kill(await postmasterPid(dataDir), 'SIGKILL');
        // Until appends are answered 201 again after the kill's refusals.
        while (!sent.some((s) => s.at > killedAt && (s.answer?.status ?? 0) >= 500)
          || !sent.some((s) => s.at > killedAt + 200 && s.answer?.status === 201 && sent.some((f) => (f.answer?.status ?? 0) >= 500 && f.at > killedAt && f.at < s.at))) {
          expect(suite.child.running, 'the suite exited instead of restarting its database').toBe(true);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    } finally {
      go = false;
      await Promise.all(clients);
    }

    const failed = sent.filter((s) => (s.answer?.status ?? 0) >= 500);
    expect(failed.length, 'no 5xx: the kills were not seen').toBeGreaterThan(0);
    const committedButNotSaid: string[] = [];
    let committed = 0;
    for (const f of failed) {
      const body = f.answer?.body as { error?: { code?: unknown; message?: unknown } };
      expect(typeof body?.error?.code, JSON.stringify(f.answer?.body)).toBe('string');
      expect(typeof body?.error?.message, JSON.stringify(f.answer?.body)).toBe('string');
      const retry = await call(`${suite.base}/executions`, { token, body: RECORD, headers: { 'idempotency-key': f.key }, timeoutMs: 15_000 });
      expect([200, 201], JSON.stringify(retry.body)).toContain(retry.status);
      if (retry.status !== 200) continue;
      committed++;
      const message = String(body.error?.message);
      if (!message.includes('the outcome is unknown') || !message.includes(`retry with the same Idempotency-Key: "${f.key}"`)) {
        committedButNotSaid.push(`${f.answer?.status} ${JSON.stringify(body)}`);
      }
    }
    console.info(`[outcome named] appends ${sent.length}, 5xx ${failed.length} (${committed} of them had committed), committed but answered as failed ${committedButNotSaid.length}`);
    expect(committedButNotSaid).toEqual([]);
  }, 120_000);
});
