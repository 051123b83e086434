/**
 * Revocation propagation between processes over NATS: how long after a revoke is answered does
 * another process's RevocationView apply it.
 *
 *   node bench/revocation.ts [--tokens 500] [--revoke-warmup 20] [--nats-url nats://127.0.0.1:4222]
 *
 * Process A: `suite run actor:chain-writer actor:audit actor:revocation actor:tokens edge:token`
 * on a throw-away Postgres database. Process B: bench/revocation-listener.ts (its own bus on NATS
 * and a RevocationView). This process revokes tokens one at a time through HTTP and compares, on
 * one clock (CLOCK_MONOTONIC through process.hrtime: the machine's, shared by both processes), B's applied time with the time the
 * revoke was sent and the time its answer arrived. By default a private nats-server on a free
 * loopback port carries the traffic, so that other users of the shared broker cannot interfere.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../testing/storage.ts';
import { callJson, mint } from './api.ts';
import { cleanEnv, spawnNode, spawnProgram, type Child } from './child.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { summarize, type Summary } from './stats.ts';
import type { ListenerReply, ListenerRequest } from './revocation-listener.ts';

export const TARGET_P99_MS = 5;
// One clock for both processes: CLOCK_MONOTONIC (process.hrtime on Linux) is the machine's, not the
// process's, so A's send and B's apply are read on the same clock. performance.timeOrigin differs
// per process by up to a millisecond or more (each derives it from the wall clock at its start).
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

export interface RevocationBenchOptions {
  tokens: number;
  warmup: number;
  natsUrl?: string | undefined;
}

export interface RevocationBenchResult {
  tokens: number;
  broker: string;
  /** B's clock minus ours, from the IPC round trip with the smallest delay (ms). */
  clockOffsetMs: number;
  clockRttMs: number;
  afterResponse: Summary;
  afterSend: Summary;
  httpRoundTrip: Summary;
  missing: number;
}

async function startBroker(asked: string | undefined): Promise<{ url: string; label: string; child?: Child }> {
  if (asked !== undefined) return { url: asked, label: `${asked} (given)` };
  let version: string;
  try {
    version = execFileSync('nats-server', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return { url: 'nats://127.0.0.1:4222', label: 'nats://127.0.0.1:4222 (shared; nats-server not found to start a private one)' };
  }
  // Port 0 (-p -1): the server binds a port of its own choosing and says which.
  const child = spawnProgram('nats-server', ['-a', '127.0.0.1', '-p', '-1'], { env: cleanEnv({}) });
  const port = Number((await child.waitFor(/Listening for client connections on [^\s]+:(\d+)/, 15_000))[1]);
  await child.waitFor(/Server is ready/, 15_000);
  return { url: `nats://127.0.0.1:${port}`, label: `private ${version} on 127.0.0.1:${port}`, child };
}

/** Ask B something over IPC and wait for the matching reply. */
function ask<T extends ListenerReply['type']>(
  b: Child,
  request: ListenerRequest | undefined,
  type: T,
  timeoutMs = 10_000,
): Promise<Extract<ListenerReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(() => reject(new Error(`listener: no "${type}" within ${timeoutMs} ms\n${b.stderr().slice(-2000)}`))), timeoutMs);
    const onMessage = (m: ListenerReply) => {
      if (m.type === type && (request?.type !== 'clock' || (m.type === 'clock' && m.id === request.id))) {
        done(() => resolve(m as Extract<ListenerReply, { type: T }>));
      }
    };
    const onExit = () => done(() => reject(new Error(`listener exited\n${b.stderr().slice(-2000)}`)));
    const done = (f: () => void) => {
      clearTimeout(timer);
      b.proc.off('message', onMessage);
      b.proc.off('exit', onExit);
      f();
    };
    b.proc.on('message', onMessage);
    b.proc.once('exit', onExit);
    if (request) b.proc.send(request);
  });
}

/** NTP-style estimate of B's clock offset: the sample with the smallest round trip wins. */
async function clockOffset(b: Child): Promise<{ offset: number; rtt: number }> {
  let best = { offset: 0, rtt: Number.POSITIVE_INFINITY };
  for (let id = 0; id < 50; id++) {
    const t0 = now();
    const { t } = await ask(b, { type: 'clock', id }, 'clock');
    const t1 = now();
    if (t1 - t0 < best.rtt) best = { offset: t - (t0 + t1) / 2, rtt: t1 - t0 };
  }
  return best;
}

async function mintAll(base: string, adminKey: string, count: number): Promise<string[]> {
  const jtis: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, k) => mint(base, adminKey, `bench-revoke-${i + k}`, ['audit:read']));
    for (const m of await Promise.all(batch)) jtis.push(m.jti);
  }
  return jtis;
}

export async function runRevocationBench(o: RevocationBenchOptions): Promise<RevocationBenchResult> {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const broker = await startBroker(o.natsUrl);
    if (broker.child) cleanups.push(() => broker.child?.stop() ?? Promise.resolve());
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());

    const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
    const a = spawnNode('cli/suite.ts', ['run', 'actor:chain-writer', 'actor:audit', 'actor:revocation', 'actor:tokens', 'edge:token'], {
      env: cleanEnv({
        SUITE_NATS_URL: broker.url,
        SUITE_DATABASE_URL: db.url,
        SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
        SUITE_ADMIN_KEY: adminKey,
        SUITE_LOG_LEVEL: 'warn',
        SUITE_HOST: '127.0.0.1',
        SUITE_TOKEN_PORT: '0',
        SUITE_RATE_LIMIT_MAX: '100000000',
      }),
    });
    cleanups.push(() => a.stop());
    const port = (await a.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 60_000))[1];
    const base = `http://127.0.0.1:${port}`;

    const b = spawnNode('bench/revocation-listener.ts', [broker.url], { env: cleanEnv({}), ipc: true });
    cleanups.push(async () => {
      if (b.proc.connected) b.proc.send({ type: 'stop' } satisfies ListenerRequest);
      await b.stop(5_000);
    });
    await ask(b, undefined, 'ready', 30_000);
    const clock = await clockOffset(b);

    const jtis = await mintAll(base, adminKey, o.warmup + o.tokens);
    const sent = new Map<string, number>();
    const answered = new Map<string, number>();
    for (const [i, jti] of jtis.entries()) {
      const t0 = now();
      const r = await callJson(`${base}/auth/token/revoke`, { headers: { 'x-suite-admin-key': adminKey }, body: { jti } });
      const t1 = now();
      if (r.status !== 200 || r.body.revoked !== true) throw new Error(`revoke ${jti} failed: ${r.status} ${JSON.stringify(r.body)}`);
      if (i >= o.warmup) {
        sent.set(jti, t0);
        answered.set(jti, t1);
      }
    }

    // Give late broadcasts up to 3 s to arrive before counting what is missing.
    let applied = new Map<string, number>();
    for (const deadline = now() + 3000; now() < deadline; ) {
      applied = new Map((await ask(b, { type: 'report' }, 'report')).applied);
      if ([...sent.keys()].every((j) => applied.has(j))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const measured = [...sent.keys()].filter((j) => applied.has(j));
    const at = (m: Map<string, number>, j: string) => m.get(j) as number;
    return {
      tokens: sent.size,
      broker: broker.label,
      clockOffsetMs: clock.offset,
      clockRttMs: clock.rtt,
      afterResponse: summarize(measured.map((j) => at(applied, j) - at(answered, j))),
      afterSend: summarize(measured.map((j) => at(applied, j) - at(sent, j))),
      httpRoundTrip: summarize([...sent.keys()].map((j) => at(answered, j) - at(sent, j))),
      missing: sent.size - measured.length,
    };
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  }
}

// Math.abs on a tiny value keeps "-0.00" out of the table.
const ms = (n: number) => (Math.abs(n) < 0.005 ? 0 : n).toFixed(2);
const line = (label: string, s: Summary) => `| ${label} | ${s.n} | ${ms(s.min)} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.max)} |`;

export function revocationMarkdown(r: RevocationBenchResult): string {
  const met = r.missing === 0 && r.afterResponse.p99 <= TARGET_P99_MS;
  return [
    `Process A: \`suite run actor:chain-writer actor:audit actor:revocation actor:tokens edge:token\` on a throw-away Postgres database (127.0.0.1:5432). ` +
      `Process B: a RevocationView on its own NATS connection. Broker: ${r.broker}. ${r.tokens} tokens revoked one at a time (POST /auth/token/revoke {jti}, admin key), after warm-up revocations not counted.`,
    '',
    '| milliseconds | n | min | p50 | p90 | p99 | max |',
    '|---|---:|---:|---:|---:|---:|---:|',
    line('B applied − revoke answer received', r.afterResponse),
    line('B applied − revoke request sent', r.afterSend),
    line('(revoke HTTP round trip)', r.httpRoundTrip),
    '',
    `- Negative values: B applied the revocation before the HTTP answer reached the caller (the actor broadcasts after the database commit, and the token actor then waits for the audit commit before answering).`,
    `- One clock: both processes read CLOCK_MONOTONIC (process.hrtime). Check: B's reading − ours around an IPC round trip = ${ms(r.clockOffsetMs)} ms (round trip ${ms(r.clockRttMs)} ms; within half of it means the same clock); nothing subtracted.`,
    `- Revocations B never applied: ${r.missing}.`,
    `- Target p99 <= ${TARGET_P99_MS} ms (B applied − answer received): **${met ? 'met' : 'NOT met'}** (p99 ${ms(r.afterResponse.p99)} ms).`,
    `- Counted from the moment the revoke was sent instead, p99 is ${ms(r.afterSend.p99)} ms: the whole revoke path (HTTP, edge, token actor and revocation actor over NATS, the Postgres writes, the broadcast).`,
  ].join('\n');
}

/** Command-line options of this benchmark (bench/run.ts accepts them too). */
export const REVOCATION_ARGS = {
  tokens: { type: 'string', default: '500' },
  'revoke-warmup': { type: 'string', default: '20' },
  'nats-url': { type: 'string' },
} as const;

export function revocationOptionsFrom(v: Record<string, string | boolean | undefined>): RevocationBenchOptions {
  const text = (k: string) => (typeof v[k] === 'string' ? v[k] : undefined);
  return { tokens: Number(text('tokens') ?? 500), warmup: Number(text('revoke-warmup') ?? 20), natsUrl: text('nats-url') };
}

if (import.meta.main) {
  const options = revocationOptionsFrom(parseArgs({ args: process.argv.slice(2), options: REVOCATION_ARGS }).values);
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  const result = await runRevocationBench(options);
  process.stdout.write(`${revocationMarkdown(result)}\n`);
  if (result.missing > 0) process.exitCode = 1;
}
