import type { Bus, EventSubject, ReplyOf, RequestOf, RequestSubject, Result } from './types.ts';

export interface CarryOptions {
  /**
   * Events that say a new server has just started to answer (a chain writer that took the lease).
   * On each, every request in flight is sent again.
   */
  readonly announcedBy: readonly EventSubject[];
  /**
   * Send again when no answer has come for this long (ms): a server stopped, not killed (SIGSTOP, a
   * frozen VM) still takes its share of requests from the queue group and answers none of them.
   * Without it, only announcements and reconnects carry a request. Only within `attemptWindowMs` of
   * an announcement: a stopped leader is in the queue group beside another only once that other has
   * taken the lease, and a server merely slow (a saturated machine) is not sent more work.
   */
  readonly attemptMs?: number;
  /** How long after an announcement unanswered attempts are sent again (default 60 s). */
  readonly attemptWindowMs?: number;
  /**
   * How many copies each re-send sends at once (default 1). A stopped server keeps its place in the
   * queue group, which picks a member at random for each copy: with two members, three copies all
   * reach the stopped one one time in eight, where one copy does every other time.
   */
  readonly copies?: number;
  /** Wait before sending a carried request again when no server answers yet (it subscribes just after it announces). */
  readonly retryMs?: number;
  /** At most this many re-sends per request. */
  readonly maxCarries?: number;
}

export interface CarriedRequest<S extends RequestSubject> {
  /** How long the request may wait for its answer in all (ms), whatever the number of sends. */
  readonly deadlineMs: number;
  /** What a re-send sends, when it must say so (an audit batch's `retry: true`); the request itself otherwise. */
  readonly again?: RequestOf<S>;
}

export interface Carrier {
  /**
   * Sends the request; sends it again on an announcement, a reconnect of the bus, or `attemptMs`
   * without an answer. The first answer a server gives (a reply or an error of its own) is the
   * answer; a transport failure only when every send failed so.
   */
  request<S extends RequestSubject>(subject: S, data: RequestOf<S>, how: CarriedRequest<S>): Promise<Result<ReplyOf<S>>>;
  stop(): void;
}

/**
 * Re-send what is in flight when a new server takes over (issue 34, item 2; docs/RELIABILITY.md,
 * "Requests in flight at a failover"). A subject served by one leader at a time (a chain writer)
 * loses every request sent to a leader that dies, or through a NATS node that dies, and each would
 * wait out its timeout. Sending again is safe only for requests the server recognises a second time
 * (an append with an Idempotency-Key, an audit batch whose entries carry their ids): use it for
 * nothing else. Each send goes to whichever server the queue group picks; the sends before it stay
 * open, so a slow but living server can still answer first.
 */
export function carrier(bus: Bus, options: CarryOptions): Carrier {
  const retryMs = options.retryMs ?? 25;
  const maxCarries = options.maxCarries ?? 8;
  const copies = options.copies ?? 1;
  const attemptWindowMs = options.attemptWindowMs ?? 60_000;
  let announcedAt = Number.NEGATIVE_INFINITY;
  const inFlight = new Set<() => void>();
  const carryAll = () => {
    for (const carry of [...inFlight]) carry();
  };
  const announced = () => {
    announcedAt = Date.now();
    carryAll();
  };
  const subscriptions: Array<{ unsubscribe(): Promise<void> }> = [];
  for (const event of options.announcedBy) {
    try {
      subscriptions.push(bus.subscribe(event, announced));
    } catch {
      // A bus already draining: nothing will be in flight to carry.
    }
  }
  const offStatus = bus.onStatus((status) => {
    if (status === 'connected') carryAll();
  });

  return {
    request<S extends RequestSubject>(subject: S, data: RequestOf<S>, how: CarriedRequest<S>) {
      const deadline = Date.now() + how.deadlineMs;
      return new Promise<Result<ReplyOf<S>>>((resolve) => {
        let settled = false;
        let live = 0;
        let carries = 0;
        let last: Result<ReplyOf<S>> | undefined;
        let attemptTimer: NodeJS.Timeout | undefined;
        const finish = (r: Result<ReplyOf<S>>) => {
          if (settled) return;
          settled = true;
          clearTimeout(attemptTimer);
          inFlight.delete(carry);
          resolve(r);
        };
        const armAttempt = () => {
          if (options.attemptMs === undefined) return;
          clearTimeout(attemptTimer);
          if (deadline - Date.now() <= options.attemptMs) return;
          attemptTimer = setTimeout(() => (Date.now() - announcedAt < attemptWindowMs ? carry() : armAttempt()), options.attemptMs);
          attemptTimer.unref();
        };
        const send = (carried: boolean) => {
          const remaining = deadline - Date.now();
          if (settled || remaining < 1) return;
          live++;
          armAttempt();
          void bus.request(subject, carried && how.again !== undefined ? how.again : data, { timeoutMs: remaining }).then((r) => {
            live--;
            // An answer of the server (a reply, or an error it gave) is the answer.
            if (r.ok || r.transport === undefined) return finish(r);
            last = r;
            // A carried send that found no server yet (it subscribes just after announcing, and
            // interest takes a moment to cross a NATS cluster) tries again shortly.
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
          for (let i = 0; i < copies; i++) send(true);
        };
        inFlight.add(carry);
        send(false);
      });
    },
    stop() {
      offStatus();
      for (const s of subscriptions) void s.unsubscribe().catch(() => undefined);
    },
  };
}
