import { request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { SERVICES, type ServiceName } from '../config/index.ts';
import { Child } from '../compose/child.ts';
import { inherited, listenerPorts, waitFor, zeroPorts } from '../compose/local-cluster.ts';
import { call, errorCode, printOutputOnFailure } from './helpers.ts';

/**
 * Graceful shutdown of the embedded suite (`suite start`, one OS process): SIGTERM while token
 * requests are in flight. Requests already accepted are answered properly, the process exits 0,
 * and what it answered 200 for is in the audit chain after a restart on the same data folder.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOTAL = 200;
const CONCURRENCY = 16;
const SIGTERM_AFTER = 60;
/** Connections made this close before SIGTERM race the edge's close (see below). */
const RACE_MS = 10;
const REPO_ROOT = join(import.meta.dirname, '..');

let dir: string;
let ports: Record<ServiceName, number>;
const children: Child[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'suite-shutdown-'));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop(5000)));
  await rm(dir, { recursive: true, force: true });
});
printOutputOnFailure(() => children.map((c) => c.output()).join('\n'));

async function startEmbedded(name: string): Promise<Child> {
  const env: Record<string, string> = { ...inherited(), SUITE_LOG_LEVEL: 'warn' };
  // Each start binds ports of its own choosing; the test reads them from what it prints.
  const child = new Child({ name, args: ['cli/suite.ts', 'start', '--data-dir', dir], env: { ...env, ...zeroPorts() }, cwd: REPO_ROOT });
  children.push(child);
  ports = await listenerPorts(child, SERVICES);
  await waitFor(async () => (await call(tokenUrl('/ready'), { timeoutMs: 1000 })).status === 200, {
    timeoutMs: 40_000,
    abort: () => (child.running ? undefined : `the suite exited before it was ready:\n${child.output()}`),
    describe: () => `the suite was not ready after 40 s:\n${child.output()}`,
  });
  return child;
}

const tokenUrl = (path: string) => `http://127.0.0.1:${ports.token}${path}`;

interface Outcome {
  readonly i: number;
  /** performance.now() when the TCP connection was established; undefined if it never was. */
  connectedAt?: number;
  status?: number;
  body?: unknown;
  error?: string;
}

/**
 * One POST /auth/token on a connection of its own (no keep-alive), so "accepted" is per request.
 * With `pauseMs`, the body is sent in two parts that far apart: the request is then certainly in
 * flight for that long after its connection is made (`onConnect`).
 */
function issue(adminKey: string, i: number, slow?: { pauseMs: number; onConnect(): void }): Promise<Outcome> {
  const outcome: Outcome = { i };
  return new Promise((resolve) => {
    const req = request(
      tokenUrl('/auth/token'),
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'x-suite-admin-key': adminKey },
        timeout: 15_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          outcome.status = res.statusCode;
          try {
            outcome.body = JSON.parse(text);
          } catch {
            outcome.body = text;
          }
          resolve(outcome);
        });
        res.on('error', (err) => resolve({ ...outcome, error: (err as NodeJS.ErrnoException).code ?? err.message }));
      },
    );
    req.on('socket', (s) =>
      s.once('connect', () => {
        outcome.connectedAt = performance.now();
        slow?.onConnect();
      }),
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (err) => resolve({ ...outcome, error: (err as NodeJS.ErrnoException).code ?? err.message }));
    const body = JSON.stringify({ sub: `burst-${i}`, scope: ['audit:read'] });
    if (!slow) {
      req.end(body);
      return;
    }
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), slow.pauseMs);
  });
}

describe('graceful shutdown of the embedded suite', () => {
  test('SIGTERM during a burst of token requests answers every accepted request properly, exits 0, and loses no audit entry', async () => {
    const first = await startEmbedded('suite');
    const { adminKey } = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8')) as { adminKey: string };

    const outcomes: Outcome[] = [];
    let next = 0;
    let sigtermAt: number | undefined;
    const worker = async () => {
      while (next < TOTAL) outcomes.push(await issue(adminKey, next++));
    };
    // SIGTERM midway through the burst, while one request is certainly in flight: its connection
    // is older than RACE_MS and its body is still arriving. (Sent after the n-th answer instead, on
    // a fast machine every request then in flight was younger than RACE_MS, and none counted.)
    const trigger = async () => {
      while (outcomes.length < SIGTERM_AFTER) await new Promise((r) => setTimeout(r, 1));
      outcomes.push(
        await issue(adminKey, next++, {
          pauseMs: 3 * RACE_MS,
          onConnect: () =>
            setTimeout(() => {
              sigtermAt = performance.now();
              first.signal('SIGTERM');
            }, 2 * RACE_MS),
        }),
      );
    };
    const burst = Promise.all([trigger(), ...Array.from({ length: CONCURRENCY }, worker)]);
    const exit = await first.exited();
    const exitedAt = performance.now();
    await burst;
    expect(exit).toEqual({ code: 0, signal: null });
    if (sigtermAt === undefined) throw new Error('SIGTERM was never sent');
    const at = sigtermAt;

    const answered = outcomes.filter((o) => o.status !== undefined);
    const ok = answered.filter((o) => o.status === 200);
    // Accepted before SIGTERM: its TCP connection was established before the signal was sent, by
    // more than RACE_MS. A connection made in the last few ms may not have had its request read
    // when the edge closes, and Node then closes it as idle (reset): counted and printed, see the
    // report on this test.
    const acceptedBefore = outcomes.filter((o) => o.connectedAt !== undefined && o.connectedAt < at - RACE_MS);
    const raceResets = outcomes.filter((o) => o.error !== undefined && o.connectedAt !== undefined && o.connectedAt < at && o.connectedAt >= at - RACE_MS);
    const inFlight = acceptedBefore.filter((o) => outcomes.indexOf(o) >= SIGTERM_AFTER);
    const failed = outcomes.filter((o) => o.error !== undefined);
    const count = (code: string) => failed.filter((o) => o.error === code).length;
    process.stdout.write(
      `shutdown: ${outcomes.length} requests, ${ok.length} answered 200, ${answered.length - ok.length} other answers, ` +
        `${inFlight.length} in flight at SIGTERM; ${count('ECONNREFUSED')} refused at connect, ` +
        `${count('ECONNRESET')} reset (${raceResets.length} of them connected < ${RACE_MS} ms before SIGTERM, the others after it); ` +
        `exit ${Math.round(exitedAt - at)} ms after SIGTERM\n`,
    );

    expect(inFlight.length).toBeGreaterThan(0);
    // Every answer is a token or an error of the spec's shape.
    for (const o of answered) {
      if (o.status === 200) expect(o.body).toMatchObject({ token: expect.any(String), jti: expect.any(String) });
      else expect({ i: o.i, status: o.status, code: errorCode(o.body) }).toEqual({ i: o.i, status: o.status, code: expect.any(String) });
    }
    // A request accepted before SIGTERM gets an answer: never a reset, never silence.
    const unanswered = acceptedBefore.filter((o) => o.status === undefined);
    expect(unanswered.map((o) => ({ i: o.i, error: o.error, connectedMsBeforeSigterm: +(at - (o.connectedAt ?? 0)).toFixed(1) }))).toEqual([]);
    // The others were turned away at the door (refused or reset), none left hanging.
    expect(failed.filter((o) => o.error !== 'ECONNREFUSED' && o.error !== 'ECONNRESET')).toEqual([]);

    const second = await startEmbedded('suite (restarted)');
    const verify = await call(tokenUrl('/audit/verify'), { adminKey, timeoutMs: 30_000 });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ valid: true });

    const issued = new Set<string>();
    for (let offset = 0; ; offset += 500) {
      const page = await call(tokenUrl(`/audit?limit=500&offset=${offset}`), { adminKey });
      expect(page.status).toBe(200);
      const { entries } = page.body as { entries: Array<{ action: string; result: string; reason: string }> };
      for (const e of entries) {
        const jti = /^issued (\S+)/.exec(e.reason)?.[1];
        if (e.action === 'auth:token:create' && e.result === 'allow' && jti !== undefined) issued.add(jti);
      }
      if (entries.length < 500) break;
    }
    const missing = ok.map((o) => (o.body as { jti: string }).jti).filter((jti) => !issued.has(jti));
    expect(missing).toEqual([]);
    expect(await second.stop(15_000)).toEqual({ code: 0, signal: null });
  });
});
