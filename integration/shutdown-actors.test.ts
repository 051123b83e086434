import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { ACTORS, call, mint, pollUntil, printOutputOnFailure, type Answer } from './helpers.ts';

/**
 * The distributed variant of graceful shutdown: the actors process gets SIGTERM while its edges
 * keep running. It exits 0; the edges stop trusting their revocation view after the declared
 * staleness bound and fail closed (spec, Authentication rule 10) with quick 503s, not hangs; once
 * the actors process is back they recover on their own.
 */
vi.setConfig({ testTimeout: 45_000, hookTimeout: 90_000 });

const STALENESS_MS = 1500;
/** A protected request must be answered within this, whatever it answers. */
const ANSWER_BOUND_MS = 2000;
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors', roles: ACTORS },
      { name: 'edges', roles: ['edge:token', 'edge:scheduler'] },
    ],
    stalenessMs: STALENESS_MS,
  });
});
afterAll(async () => {
  await cluster?.stop();
});
printOutputOnFailure(() => cluster?.output() ?? '');

const tokenUrl = (path: string) => cluster.process('edges').url('token', path);
const schedulerUrl = (path: string) => cluster.process('edges').url('scheduler', path);
/** A prompt, proper "not now": 503 with one of the two unavailability codes. */
const statusAndCode = (a: Answer) => ({ status: a.status, code: a.code });
const UNAVAILABLE = { status: 503, code: expect.stringMatching(/^(REVOCATION|SERVICE)_UNAVAILABLE$/) };

describe('SIGTERM to the actors process while its edges run', () => {
  test('edges fail closed with prompt 503s after the staleness bound, and recover when the actors process is back', async () => {
    const t = await mint(tokenUrl(''), cluster.adminKey, 'agent-outage', ['audit:read']);
    const routes = [tokenUrl('/audit?limit=1'), tokenUrl('/capabilities'), schedulerUrl('/capabilities')];
    for (const url of routes) expect({ url, status: (await call(url, { token: t.token })).status }).toEqual({ url, status: 200 });

    const actors = cluster.process('actors');
    const sigterm = performance.now();
    const exit = await actors.stop(15_000);
    const stoppedMs = Math.round(performance.now() - sigterm);
    expect(exit).toEqual({ code: 0, signal: null });

    // /ready of both edges turns 503 within the staleness bound (plus scheduling slack).
    for (const url of [tokenUrl('/ready'), schedulerUrl('/ready')]) {
      await pollUntil(`${url} answers 503`, async () => (await call(url)).status === 503, { timeoutMs: STALENESS_MS + 1500, since: sigterm });
    }
    // Bearer routes refuse: revocations cannot be trusted (or the actors are unreachable).
    const failedClosedMs = await pollUntil(
      'every protected route answers 503 REVOCATION_UNAVAILABLE',
      async () => {
        const answers = await Promise.all(routes.map((url) => call(url, { token: t.token, timeoutMs: ANSWER_BOUND_MS })));
        return { done: answers.every((a) => a.status === 503 && a.code === 'REVOCATION_UNAVAILABLE'), seen: answers.map((a) => a.code ?? a.status) };
      },
      { timeoutMs: STALENESS_MS + 1500, since: sigterm },
    );
    // Admin-key routes do not depend on the view, but their actor is gone: a prompt 503, not a hang.
    const started = performance.now();
    const issue = await call(tokenUrl('/auth/token'), { adminKey: cluster.adminKey, body: { sub: 'x', scope: ['audit:read'] }, timeoutMs: ANSWER_BOUND_MS });
    const issueMs = Math.round(performance.now() - started);
    expect(statusAndCode(issue)).toEqual(UNAVAILABLE);
    const audit = await call(tokenUrl('/audit?limit=1'), { adminKey: cluster.adminKey, timeoutMs: ANSWER_BOUND_MS });
    expect(statusAndCode(audit)).toEqual(UNAVAILABLE);

    const restart = performance.now();
    await actors.start();
    const recoveredMs = await pollUntil(
      'both edges are ready again',
      async () => {
        const ready = await Promise.all([call(tokenUrl('/ready')), call(schedulerUrl('/ready'))]);
        return ready.every((a) => a.status === 200);
      },
      { timeoutMs: 10_000, since: restart },
    );
    for (const url of routes) expect({ url, status: (await call(url, { token: t.token })).status }).toEqual({ url, status: 200 });
    const after = await mint(tokenUrl(''), cluster.adminKey, 'agent-after', ['audit:read']);
    expect((await call(schedulerUrl('/capabilities'), { token: after.token })).status).toBe(200);
    const verify = await call(tokenUrl('/audit/verify'), { adminKey: cluster.adminKey, timeoutMs: 10_000 });
    expect(verify.body).toMatchObject({ valid: true });

    process.stdout.write(
      `actors shutdown: exited 0 in ${stoppedMs} ms; edges failed closed ${failedClosedMs} ms after SIGTERM ` +
        `(staleness bound ${STALENESS_MS} ms); admin issue answered ${issue.status} ${issue.code} in ${issueMs} ms; ` +
        `edges ready again ${recoveredMs} ms after the restart began\n`,
    );
  });
});
