import { summarize } from '../bench/stats.ts';
import { call } from '../integration/helpers.ts';

/**
 * Append load for the chaos tests and bench/failover.ts: workers that each append one execution record at a time, retrying
 * with the same Idempotency-Key until it is acknowledged (what a careful client does when an answer
 * is 503 or never comes), and the gaps between acknowledgements that clients saw.
 */

export interface Ack {
  readonly key: string;
  readonly id: string;
  readonly seq: number;
  readonly hash: string;
}

export interface AppendLoad {
  readonly acks: readonly Ack[];
  /** How many clients append at once, each one record at a time. */
  readonly workers: number;
  /** When each acknowledgement came (Date.now()), in order: the gaps clients saw. */
  readonly ackTimes: readonly number[];
  /** Answers other than an acknowledgement, by `status code`, while retrying. */
  readonly refusals: ReadonlyMap<string, number>;
  /** Resolves once `count` appends are acknowledged (an event, not a poll); rejects when a worker failed. */
  acknowledged(count: number): Promise<void>;
  /** Lets each worker finish the append it is on (until acknowledged), then resolves. */
  stop(): Promise<void>;
}

export interface AppendLoadOptions {
  /** The token listener's base URL, or where it is now (a restarted process may bind another port). */
  readonly edge: string | (() => string);
  readonly token: string;
  /** Idempotency keys are `<keyPrefix>-<n>`: one prefix per test, so its records can be told apart. */
  readonly keyPrefix: string;
  readonly workers?: number;
  /** How long one append may go unacknowledged before the load fails (default 60 s). */
  readonly giveUpMs?: number;
}

export function startAppendLoad(o: AppendLoadOptions): AppendLoad {
  const acks: Ack[] = [];
  const ackTimes: number[] = [];
  const refusals = new Map<string, number>();
  const waiting: Array<{ count: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  let failure: unknown;
  let next = 0;
  let running = true;

  const settle = () => {
    for (const w of [...waiting]) {
      if (failure !== undefined) w.reject(failure);
      else if (acks.length >= w.count) w.resolve();
      else continue;
      waiting.splice(waiting.indexOf(w), 1);
    }
  };

  async function appendUntilAcknowledged(i: number): Promise<void> {
    const key = `${o.keyPrefix}-${i}`;
    const deadline = Date.now() + (o.giveUpMs ?? 60_000);
    while (Date.now() < deadline) {
      const edge = typeof o.edge === 'string' ? o.edge : o.edge();
      const a = await call(`${edge}/executions`, {
        token: o.token,
        timeoutMs: 10_000,
        headers: { 'idempotency-key': key },
        body: { subject: 'crash-agent', scope: ['crm:write'], module: 'crm', action: 'update', input: { i }, outcome: 'success' },
      }).catch((err: unknown) => ({ status: 0, body: undefined, code: (err as Error).name }));
      if (a.status === 200 || a.status === 201) {
        const r = a.body as { id: string; seq: number; hash: string };
        acks.push({ key, id: r.id, seq: r.seq, hash: r.hash });
        ackTimes.push(Date.now());
        settle();
        return;
      }
      const what = `${a.status} ${a.code ?? ''}`;
      refusals.set(what, (refusals.get(what) ?? 0) + 1);
      // A short pause before retrying a refusal, so that retries do not spin while no writer leads.
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`append ${key} not acknowledged within ${o.giveUpMs ?? 60_000} ms`);
  }

  const workers = Promise.all(
    Array.from({ length: o.workers ?? 16 }, async () => {
      while (running) await appendUntilAcknowledged(next++);
    }),
  ).catch((err: unknown) => {
    failure = err;
    settle();
    throw err;
  });
  workers.catch(() => undefined);

  return {
    workers: o.workers ?? 16,
    acks,
    ackTimes,
    refusals,
    acknowledged(count) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ count, resolve, reject });
        settle();
      });
    },
    async stop() {
      running = false;
      await workers;
    },
  };
}

/**
 * The longest time with no acknowledgement at all (any client's) around a fault at `from`: from the
 * last acknowledgement before it, through every acknowledgement up to `to`. What 20 clients waiting on
 * each answer see of a failover (issue 34, item 2).
 */
export function longestGap(ackTimes: readonly number[], from: number, to: number): number {
  let previous = from;
  for (const t of ackTimes) {
    if (t <= from) previous = t;
    else break;
  }
  let longest = 0;
  for (const t of ackTimes) {
    if (t <= from) continue;
    if (t > to) break;
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  return longest;
}

/** Nearest-rank percentile of unsorted measurements (bench/stats.ts). */
export function percentile(values: readonly number[], p: 50 | 99): number {
  const s = summarize(values);
  return p === 50 ? s.p50 : s.p99;
}
