import type { Bus, RecordRequestData, ReplyOf, Result } from '../../../bus/index.ts';
import { carrier, subjects } from '../../../bus/index.ts';

type RecordRequest = RecordRequestData;
type Recorded = ReplyOf<typeof subjects.executionsRecord>;

export interface CarryOptions {
  /** How long an append may wait for its answer in all, in ms (the bus's request timeout, 5000). */
  readonly deadlineMs?: number;
  /**
   * Send a keyed append again after this long without an answer (default 750 ms): a stopped leader
   * still takes its share of the requests until its lease holder's connection dies.
   */
  readonly attemptMs?: number;
  /** Wait before sending a carried append again when no writer serves yet (it subscribes just after it announces its key). */
  readonly retryMs?: number;
  /** At most this many re-sends per append (each lease move, reconnect or attempt timeout is one). */
  readonly maxCarries?: number;
}

export interface AppendCarrier {
  /** Sends the append; with an Idempotency-Key, re-sends it with that key whenever the lease moves, the bus reconnects, or an attempt goes unanswered. */
  record(data: RecordRequest): Promise<Result<Recorded>>;
  stop(): void;
}

/**
 * Failover as clients see it (issue 34, item 2; docs/RELIABILITY.md, "Requests in flight at a
 * failover"). Only the leading chain writer serves `suite.executions.record`; when it dies, or when
 * this edge's NATS node dies, a request already sent has no one left to answer it and would wait out
 * the bus timeout (5 s). A writer announcing its key (`executionsKeyPublished`, published exactly
 * when it takes the lease), the bus reconnecting, or `attemptMs` without an answer (a stopped
 * leader) send every keyed append in flight again with the same key (bus/carry.ts). The key makes
 * this safe: the writer joins a send of a key it is still committing, and answers a committed key
 * with its record (200 rather than 201), so a carried append never makes a second record. An append
 * without a key is never re-sent (a second send could record it twice); it waits out the timeout.
 */
export function carryAppends(bus: Bus, options: CarryOptions = {}): AppendCarrier {
  const deadlineMs = options.deadlineMs ?? 5000;
  const carried = carrier(bus, {
    announcedBy: [subjects.executionsKeyPublished],
    attemptMs: options.attemptMs ?? 750,
    // A stopped leader stays in the queue group until its connection dies: each re-send goes out three times.
    copies: 3,
    ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    ...(options.maxCarries !== undefined ? { maxCarries: options.maxCarries } : {}),
  });
  return {
    record(data) {
      if (data.idempotencyKey === undefined) return bus.request(subjects.executionsRecord, data, { timeoutMs: deadlineMs });
      return carried.request(subjects.executionsRecord, data, { deadlineMs });
    },
    stop: () => carried.stop(),
  };
}
