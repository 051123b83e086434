import type { Bus, RecordRequestData, ReplyOf, Result } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';

type RecordRequest = RecordRequestData;
type Recorded = ReplyOf<typeof subjects.executionsRecord>;

export interface CarryOptions {
  /** How long an append may wait for its answer in all, in ms (the bus's request timeout, 5000). */
  readonly deadlineMs?: number;
  /** Wait before sending a carried append again when no writer serves yet (it subscribes just after it announces its key). */
  readonly retryMs?: number;
  /** At most this many re-sends per append (each lease move or reconnect is one). */
  readonly maxCarries?: number;
}

export interface AppendCarrier {
  /** Sends the append; with an Idempotency-Key, re-sends it with that key whenever the lease moves or the bus reconnects. */
  record(data: RecordRequest): Promise<Result<Recorded>>;
  stop(): void;
}

/**
 * Failover as clients see it (issue 34, item 2; docs/RELIABILITY.md, "Appends in flight at a
 * failover"). Only the leading chain writer serves `suite.executions.record`; when it dies, or when
 * this edge's NATS node dies, a request already sent has no one left to answer it and would wait out
 * the bus timeout (5 s). Two signals say such a request can now be answered: a writer announcing
 * its key (`executionsKeyPublished`, which a writer publishes exactly when it takes the lease), and
 * the bus reconnecting. On either, every append in flight that carries an Idempotency-Key is sent
 * again with the same key; whichever send answers first is the answer. The key makes this safe:
 * the writer joins a send of a key it is still committing, and answers a committed key with its
 * record, so a carried append never makes a second record. An append without a key is never
 * re-sent (a second send could record it twice); it waits out the timeout as before.
 */
export function carryAppends(bus: Bus, options: CarryOptions = {}): AppendCarrier {
  const deadlineMs = options.deadlineMs ?? 5000;
  const retryMs = options.retryMs ?? 25;
  const maxCarries = options.maxCarries ?? 8;
  const inFlight = new Set<() => void>();
  const carryAll = () => {
    for (const carry of [...inFlight]) carry();
  };
  let subscription: { unsubscribe(): Promise<void> } | undefined;
  try {
    subscription = bus.subscribe(subjects.executionsKeyPublished, carryAll);
  } catch {
    // A bus already draining: nothing is in flight to carry.
  }
  const offStatus = bus.onStatus((status) => {
    if (status === 'connected') carryAll();
  });

  return {
    record(data) {
      if (data.idempotencyKey === undefined) return bus.request(subjects.executionsRecord, data, { timeoutMs: deadlineMs });
      const deadline = Date.now() + deadlineMs;
      return new Promise((resolve) => {
        let settled = false;
        let live = 0;
        let carries = 0;
        let last: Result<Recorded> | undefined;
        const finish = (r: Result<Recorded>) => {
          if (settled) return;
          settled = true;
          inFlight.delete(carry);
          resolve(r);
        };
        const send = (carried: boolean) => {
          const remaining = deadline - Date.now();
          if (settled || remaining < 1) return;
          live++;
          void bus.request(subjects.executionsRecord, data, { timeoutMs: remaining }).then((r) => {
            live--;
            // An answer of the writer (a record, or an error it gave) is the answer.
            if (r.ok || r.transport === undefined) return finish(r);
            last = r;
            // A carried send that found no writer serving yet (it subscribes just after announcing
            // its key, and interest takes a moment to cross a NATS cluster) tries again shortly.
            const again = carried && (r.transport === 'BUS_NO_RESPONDERS' || r.transport === 'BUS_DISCONNECTED');
            if (again && deadline - Date.now() > retryMs) {
              live++;
              setTimeout(() => {
                live--;
                if (settled) return;
                send(true);
                if (live === 0 && last) finish(last);
              }, retryMs).unref();
              return;
            }
            if (live === 0) finish(r);
          });
        };
        const carry = () => {
          if (settled || carries >= maxCarries) return;
          carries++;
          send(true);
        };
        inFlight.add(carry);
        send(false);
      });
    },
    stop() {
      offStatus();
      void subscription?.unsubscribe().catch(() => undefined);
    },
  };
}
