import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, mint, printOutputOnFailure, type Answer } from '../helpers.ts';
import { startSuiteProcess, type SuiteProcess, postmasterPid } from '../../testing/chaos-suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Every uncertain outcome named (issue 34, item 3): appends with an Idempotency-Key, one at a time
 * and eight at once, while the embedded Postgres is killed twice. Every 5xx answer of a write either
 * says nothing was done (and then the same key, sent again, makes the record anew: 201, never the
 * 200 of a record already there) or says the outcome is unknown and names the key to retry with.
 * Before, a commit whose answer was lost was refused `503 "append failed"`, though it had committed.
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

const RECORD = { subject: 'outcome-agent', scope: ['crm:write'], module: 'crm', action: 'update', input: { n: 1 }, outcome: 'success' };

interface Refusal {
  key: string;
  answer: Answer;
}

describe('appends while the embedded Postgres is killed', () => {
  it('name every uncertain outcome with the Idempotency-Key to retry with, and a refusal that says nothing was done made nothing', {
    timeout: machineTimeout(120_000),
  }, async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-chaos-outcome-')), 'data');
    dirs.push(dataDir);
    const suite = await startSuiteProcess('suite', ['start', '--data-dir', dataDir], {});
    running.push(suite);
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    const { token } = await mint(suite.base, adminKey, 'outcome-agent', ['execution:record']);

    const refusals: Refusal[] = [];
    let acked = 0;
    let n = 0;
    let going = true;
    const append = async (key: string) =>
      call(`${suite.base}/executions`, { token, body: { ...RECORD, input: { key } }, headers: { 'idempotency-key': key }, timeoutMs: 15_000 }).catch(
        (err: unknown) => ({ status: 0, body: String(err), code: undefined }) as Answer,
      );
    // One worker sends one append after another (an agent), eight send at once (a busy platform).
    const workers = Array.from({ length: 9 }, async () => {
      while (going) {
        const key = `outcome-${n++}`;
        const a = await append(key);
        if (a.status === 201 || a.status === 200) acked++;
        else if (a.status >= 500) {
          refusals.push({ key, answer: a });
          // While no writer leads, refusals come at once: do not spin.
          await new Promise((r) => setTimeout(r, 20));
        } else if (a.status !== 0) throw new Error(`append ${key}: ${a.status} ${JSON.stringify(a.body)}`);
      }
    });
    const until = async (count: number) => {
      while (acked < count) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      for (const round of [1, 2]) {
        await until(acked + 150);
        const before = refusals.length;
        process.kill(await postmasterPid(dataDir), 'SIGKILL');
        // The fault took effect: appends were refused, then resumed by themselves.
        while (refusals.length === before) await new Promise((r) => setTimeout(r, 20));
        await until(acked + 50);
        expect(suite.child.running, `round ${round}: the suite exited`).toBe(true);
      }
    } finally {
      going = false;
      await Promise.all(workers);
    }

    const unnamed = refusals.filter(({ answer }) => {
      const message = (answer.body as { error?: { message?: string } })?.error?.message ?? '';
      const nothingDone = message.includes('nothing was done');
      const unknown = message.includes('the outcome is unknown') && message.includes('retry with the same Idempotency-Key');
      return answer.status !== 503 || nothingDone === unknown;
    });
    expect(unnamed.map((r) => `${r.key}: ${r.answer.status} ${JSON.stringify(r.answer.body)}`)).toEqual([]);
    // Sent again, a write refused as "nothing was done" is made now (201); one whose outcome was
    // unknown is made now or answered as the record made before (200). Never two records for a key.
    // A replay refused again with a 5xx (beside a CPU hog, the writer's lease can change hands once
    // more after the faults) is sent again, as its answer says to: what is checked is the answer that
    // finally takes it.
    const replay = async (key: string): Promise<Answer> => {
      const deadline = Date.now() + machineTimeout(20_000);
      for (;;) {
        const again = await append(key);
        if ((again.status < 500 && again.status !== 0) || Date.now() > deadline) return again;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const wrongReplays: string[] = [];
    for (const { key, answer } of refusals) {
      const again = await replay(key);
      const nothingDone = JSON.stringify(answer.body).includes('nothing was done');
      if (nothingDone ? again.status !== 201 : again.status !== 201 && again.status !== 200)
        wrongReplays.push(`${key}: ${JSON.stringify(answer.body)} then ${again.status}`);
    }
    expect(wrongReplays).toEqual([]);
    console.info(
      `[chaos outcome] acked ${acked}, refused ${refusals.length}: ${JSON.stringify(
        Object.fromEntries(
          refusals.reduce((m, r) => {
            const k = JSON.stringify(r.answer.body).slice(0, 120);
            return m.set(k, (m.get(k) ?? 0) + 1);
          }, new Map<string, number>()),
        ),
      )}`,
    );
  });
});
