import { randomBytes } from 'node:crypto';
import { carrier, describeMessageProblems, type Bus, type Carrier } from '../../bus/index.ts';
import { SuiteError } from '../../bus/index.ts';
import { AuditInputSchema } from '../../bus/index.ts';
import { subjects, type AuditInput } from '../../bus/index.ts';
import { isErrorCode } from '../../bus/index.ts';
import type { Link } from '@opentelemetry/api';
import { batchSpan, detached, linkToActive, type PromiseMetrics } from '../../observability/index.ts';
import { AuditJournal } from './journal.ts';
import { DurableCount } from './durable-count.ts';

export interface AuditBatcherOptions {
  bus: Bus;
  /** Most entries in one append request. */
  maxBatch?: number;
  /**
   * Entries held for the chain at most (default 200,000). At this bound new decisions wait
   * (`admit`, up to its deadline) for the chain to take some rather than being refused: a busy
   * suite answers later; only a stalled trail refuses.
   */
  maxBacklog?: number;
  /**
   * How long entries may wait with no append to the chain succeeding before the sink reports itself
   * unhealthy (default 10 s: longer than a chain writer's failover, 5 s by default). While it is,
   * `/ready` answers 503 and bearer-token routes are refused rather than served unaudited. A trail
   * that is behind but moving (a saturated machine: every commit succeeds, late) is not stalled.
   */
  stallMs?: number;
  /** How long `recordEffect` waits for the commit before answering anyway (default 1 s). */
  effectWaitMs?: number;
  /**
   * With a journal: how long entries wait to be sent to the chain together (default 200 ms, or until
   * `maxBatch` are queued). They are durable once synced to the journal, so the chain's insert need
   * not follow each decision: requests that come one at a time then share one chain commit (one sync)
   * instead of paying one each. Entries someone waits on (recordAndWait, recordEffect, `committed`)
   * are sent at once. Without a journal the chain commit is what makes an entry durable: sent at once.
   */
  coalesceMs?: number;
  /** How long `durable()` waits for the entries recorded so far before failing (default 3 s: with the bus request before it, an answer stays under 10 s). */
  durableWaitMs?: number;
  logger?: { info?(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
  clock?: () => number;
  /** Decisions by result and code, and the backlog gauges (observability/promise-metrics.ts). */
  metrics?: PromiseMetrics;
}

/** A batch whose oldest entry is this old (ms) is sent as a retry (the writer skips ids it has). */
const LATE_MS = 2000;

type Entry = Omit<AuditInput, 'timestamp' | 'tenantId' | 'id'> & { tenantId?: string | null };

/**
 * A decision whose entry travels with the write it let through, into that write's commit (an
 * append: its record's statement inserts the entry into `audit_outbox`), so one commit makes both
 * durable and the journal does not sync for it (issue 34, item 1; docs/DECISIONS.md, "The append's
 * audit entry in its record's commit").
 */
export interface CarriedEntry {
  /** The entry, to be sent with the write. */
  readonly entry: AuditInput;
  /** The write committed with the entry in it (the writer answered that this request made the record). */
  committedWithWrite(): void;
  /**
   * Resolves once the entry is durable: at once when its write committed it; otherwise (refused,
   * failed, outcome unknown, answered from an earlier request's record) it is written to the
   * journal now and this waits for that sync. Rejects when it cannot be made durable in time.
   */
  durable(): Promise<void>;
}

interface Buffered {
  entry: AuditInput;
  /** When it was recorded (clock ms): the oldest one's age tells a stalled trail. */
  at: number;
  done?: (err?: Error) => void;
  /** The span of the request that recorded it: the batch that sends it links there. */
  link?: Link | undefined;
}

/**
 * Sends audit entries to the chain writer in batches: entries recorded in the same turn of the
 * event loop travel in one bus request, and the writer commits them in one statement. Entries
 * are kept and retried while the writer is unreachable (a failover); `healthy()` turns false when
 * the backlog is full or has not moved for `stallMs`, and callers then fail closed rather than act
 * unaudited. An entry its own schema refuses can never be committed: it is dropped, loudly, so it
 * cannot hold up every entry behind it.
 */
export class AuditBatcher {
  /** Sends batches, and sends the one in flight again when a new audit writer leads (bus/carry.ts). */
  readonly #carrier: Carrier;
  readonly #maxBatch: number;
  readonly #maxBacklog: number;
  readonly #stallMs: number;
  readonly #effectWaitMs: number;
  readonly #logger: AuditBatcherOptions['logger'];
  readonly #clock: () => number;
  readonly #metrics: PromiseMetrics | undefined;
  #buffer: Buffered[] = [];
  #sending = false;
  #scheduled = false;
  #closed = false;
  #retryDelay = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #coalesceTimer: NodeJS.Timeout | undefined;
  readonly #coalesceMs: number;
  /** Entries in the buffer whose recorder waits for their commit: the batch is sent at once. */
  #waitedOn = 0;
  /** Entries settled by the chain (committed or dropped), and who waits for a count of them (`committed`). */
  #settledCount = 0;
  #settledWaiters: Array<{ upTo: number; resolve: () => void }> = [];
  /** When an append to the chain last succeeded, or entries began to wait after none did (clock ms). */
  #movedAt = 0;
  /** Decisions waiting for room in a full backlog (`admit`). */
  #admissions: Array<() => void> = [];
  #idle: Array<() => void> = [];
  readonly #durableWaitMs: number;
  readonly #durable = new DurableCount();
  /** The last journal write: a carried entry counts as durable for others once it is synced. */
  #journalTail: Promise<void> = Promise.resolve();
  /** With a journal (useJournal): entries synced to it, and replayed entries not yet committed. */
  #journal: AuditJournal | undefined;
  #replayLeft = 0;
  readonly #idPrefix = randomBytes(9).toString('base64url');
  #idCounter = 0;
  #isoMs = Number.NaN;
  #iso = '';

  constructor(o: AuditBatcherOptions) {
    // A batch sent to a leader that died or stopped is sent again (as a retry: the writer skips
    // the ids it has) when a new writer leads, or after 1 s without an answer, not after the 3 s timeout;
    // three copies, since a stopped leader still takes its share of them (bus/carry.ts).
    this.#carrier = carrier(o.bus, { announcedBy: [subjects.auditWriterLeads], attemptMs: 1000, copies: 3 });
    this.#maxBatch = o.maxBatch ?? 2000;
    this.#maxBacklog = o.maxBacklog ?? 200_000;
    this.#stallMs = o.stallMs ?? 10_000;
    this.#effectWaitMs = o.effectWaitMs ?? 1_000;
    this.#durableWaitMs = o.durableWaitMs ?? 3_000;
    // 200 ms: an agent's requests one at a time, even slow ones (tens of ms each on a busy machine),
    // share a chain commit; a read of the trail sends at once (`committed`), so nobody waits for it.
    this.#coalesceMs = o.coalesceMs ?? 200;
    this.#logger = o.logger;
    this.#clock = o.clock ?? Date.now;
    this.#metrics = o.metrics;
    o.metrics?.watchAudit(this);
  }

  /** Queue an entry; does not wait for the commit. */
  record(entry: Entry): void {
    this.#push({ entry: this.#complete(entry), at: this.#clock() });
  }

  /**
   * Queue the entry of a decision whose write will carry it into its own commit (CarriedEntry). It
   * is sent to the chain like any other, batched, but not written to the journal: the write's commit
   * is its durable copy, or, when the write did not commit it, the journal write `durable()` makes
   * then. Answers undefined, having recorded the entry as usual, when there is no journal (the
   * chain's commit is what an answer waits for then) or the sink is closed.
   */
  carry(e: Entry): CarriedEntry | undefined {
    if (this.#journal === undefined || this.#closed) {
      this.record(e);
      return undefined;
    }
    const entry = this.#complete(e);
    const number = this.#push({ entry, at: this.#clock() }, true);
    let inWrite = false;
    let journaled: Promise<void> | undefined;
    return {
      entry,
      committedWithWrite: () => {
        inWrite = true;
      },
      durable: () => {
        if (inWrite) return Promise.resolve();
        journaled ??= this.#journalCarried(entry, number);
        return journaled;
      },
    };
  }

  /**
   * Queue an entry and resolve once it is committed to the chain: for a decision that must not
   * take effect unaudited (issuing a token: it is handed out only once its entry is in the chain).
   * Fails at once with SERVICE_UNAVAILABLE while the sink is unhealthy, rather than waiting out
   * the caller's timeout.
   */
  recordAndWait(entry: Entry): Promise<void> {
    if (!this.healthy()) return Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', 'audit trail unavailable; try again shortly'));
    // With a journal the entry is durable once synced there: waiting for the chain as well would make
    // the decision wait for the trail's backlog on a busy machine, for nothing durability needs.
    if (this.#journal !== undefined) {
      this.record(entry);
      return this.durable();
    }
    return new Promise((resolve, reject) => {
      this.#push({ entry: this.#complete(entry), at: this.#clock(), done: (err) => (err ? reject(err) : resolve()) });
    });
  }

  /**
   * Queue the entry of a decision that has already taken effect (a revocation, a suspension, a
   * rotated key): wait up to `effectWaitMs` for its commit, so that in the ordinary case the
   * caller's next audit read sees it, then answer anyway. The effect is never reported as failed
   * because its record is late; the entry stays queued and is committed when the trail can take it
   * (flushed at shutdown). Resolves true when committed within the wait.
   */
  recordEffect(entry: Entry): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), this.#effectWaitMs);
      timer.unref();
      this.#push({
        entry: this.#complete(entry),
        at: this.#clock(),
        done: (err) => {
          clearTimeout(timer);
          resolve(err === undefined);
        },
      });
    });
  }

  /**
   * Resolves once every entry recorded so far (or the first `upTo`) is durable: an answer that reports a
   * decision waits for it, so no answered decision's entry can be lost (docs/DECISIONS.md, "Audit
   * entries of answered decisions"). Rejects with SERVICE_UNAVAILABLE at once while the sink is
   * unhealthy, and after `durableWaitMs` otherwise (the entries stay queued and are committed later).
   */
  durable(upTo = this.#durable.recorded): Promise<void> {
    if (this.#durable.reached(upTo)) return Promise.resolve();
    // With a journal, an entry is durable once synced there, whether or not the chain can take it now.
    // Without one, not while the sink is unhealthy; and a waiter fails at the next failed append.
    if (this.#journal === undefined && !this.healthy()) {
      return Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', 'audit trail unavailable; try again shortly'));
    }
    return this.#durable.wait(upTo, this.#durableWaitMs);
  }

  /**
   * Resolves once every entry recorded so far is in the chain (sent now rather than after the
   * coalescing window), or after `timeoutMs` whatever happened: a read of the trail waits for it so
   * that a caller sees the decisions this edge answered before (read-your-writes), never refuses.
   */
  committed(timeoutMs = 1_000): Promise<void> {
    const upTo = this.#durable.recorded;
    // Without a journal an answer already waited for its entry's commit: nothing to hurry.
    if (this.#journal === undefined || this.#settledCount >= upTo || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      const waiter = { upTo, resolve: done };
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#settledWaiters.push(waiter);
      this.#sendNow();
    });
  }

  healthy(): boolean {
    return this.#buffer.length < this.#maxBacklog && !this.stalled();
  }

  /**
   * Entries wait and no append to the chain has succeeded for `stallMs`: the trail is down, not
   * behind. Decisions are then refused (with no journal they could not be made durable at all).
   */
  stalled(): boolean {
    const oldest = this.#buffer[0];
    return oldest !== undefined && this.#clock() - Math.max(oldest.at, this.#movedAt) >= this.#stallMs;
  }

  /**
   * Backpressure before refusal: resolves at once while the backlog has room; when it is full and
   * the trail still moves, once it has room again, or rejects after `deadlineMs`; rejects at once
   * while the trail is stalled. A guard calls it before deciding, so a saturated suite answers later
   * rather than refusing (issue 34, item 6).
   */
  admit(deadlineMs = 5_000): Promise<void> {
    if (this.stalled() || this.#closed) return Promise.reject(new SuiteError('SERVICE_UNAVAILABLE', 'audit trail unavailable; try again shortly'));
    if (this.#buffer.length < this.#maxBacklog) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#admissions = this.#admissions.filter((a) => a !== admitted);
        reject(new SuiteError('SERVICE_UNAVAILABLE', `audit trail ${this.#buffer.length} entries behind for ${deadlineMs} ms; try again shortly`));
      }, deadlineMs);
      timer.unref();
      const admitted = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#admissions.push(admitted);
    });
  }

  /** How many entries were recorded so far: `durable(recorded)` then waits for those only. */
  recorded(): number {
    return this.#durable.recorded;
  }

  get backlog(): number {
    return this.#buffer.length;
  }

  /** How long the oldest uncommitted entry has waited, in ms (0 when none waits). */
  get oldestAgeMs(): number {
    const oldest = this.#buffer[0];
    return oldest === undefined ? 0 : Math.max(0, this.#clock() - oldest.at);
  }

  /** Resolves true when everything recorded so far has been committed, false if `timeoutMs` passed first. */
  async flush(timeoutMs = 10_000): Promise<boolean> {
    if (this.#buffer.length === 0 && !this.#sending) return true;
    this.#sendNow();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /**
   * Stop retrying. Entries still buffered are not committed: with a journal they stay in it and are
   * committed at the next start; without one they are logged (how many, and the ids and times of
   * the first and last, to reconcile the chain with). Their waiters are rejected either way. Entries
   * recorded after this are refused the same way, never silently kept.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#carrier.stop();
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (this.#coalesceTimer) clearTimeout(this.#coalesceTimer);
    this.#coalesceTimer = undefined;
    const lost = this.#buffer;
    this.#buffer = [];
    const journal = this.#journal;
    if (lost.length > 0) {
      const [first, last] = [lost[0]?.entry, lost[lost.length - 1]?.entry];
      const fields = { pending: lost.length, first: { id: first?.id, timestamp: first?.timestamp }, last: { id: last?.id, timestamp: last?.timestamp } };
      if (journal) this.#logger?.warn(fields, 'audit entries not committed at shutdown are kept in the journal: they are committed at the next start');
      else this.#logger?.error(fields, 'audit entries not committed at shutdown');
    }
    for (const b of lost) b.done?.(new SuiteError('SERVICE_UNAVAILABLE', 'audit sink closed'));
    for (const w of this.#settledWaiters.splice(0)) w.resolve();
    this.#durable.failAll('audit sink closed');
    if (journal) {
      this.#journal = undefined;
      if (lost.length === 0) await journal.clear();
      await journal.close();
    }
  }

  /**
   * Keep every entry in a local journal in `folder` (journal.ts) from now on: a decision is then
   * answered once its entry is synced there, and entries the chain has not taken are committed
   * later, even after a SIGTERM or a kill -9. Entries an earlier run left in it are queued first, in
   * their order, and sent as retries (the writer skips those it already has). Answers how many.
   */
  async useJournal(folder: string): Promise<number> {
    const { journal, kept, unreadable } = await AuditJournal.open(folder);
    if (unreadable > 0)
      this.#logger?.warn({ unreadable, folder }, 'audit journal: unreadable lines skipped (a write cut short before its sync: never answered)');
    this.#journal = journal;
    const now = this.#clock();
    this.#buffer.unshift(...kept.map((entry) => ({ entry, at: now })));
    this.#durable.record(kept.length, true);
    this.#replayLeft += kept.length;
    if (kept.length > 0) {
      this.#logger?.info?.({ entries: kept.length, folder }, 'audit journal: committing the entries an earlier run left');
      this.#schedule();
    }
    return kept.length;
  }

  /** Answers the entry's number in recording order (what `durable(upTo)` and the chain's settling count). */
  #push(b: Buffered, carried = false): number {
    if (this.#closed) {
      this.#logger?.error({ id: b.entry.id, action: b.entry.action, resource: b.entry.resource }, 'audit entry recorded after the sink closed; not committed');
      b.done?.(new SuiteError('SERVICE_UNAVAILABLE', 'audit sink closed'));
      return this.#durable.recorded;
    }
    b.link = linkToActive();
    // Bounded labels: the catalogue's codes, `none` for an allow, `other` for any free-text reason.
    this.#metrics?.decided(b.entry.result, b.entry.result === 'allow' ? 'none' : isErrorCode(b.entry.reason) ? b.entry.reason : 'other');
    this.#durable.record(1);
    if (b.done) this.#waitedOn++;
    this.#buffer.push(b);
    const journal = this.#journal;
    if (journal !== undefined) {
      // A carried entry is not journaled: its own request waits for it (CarriedEntry.durable), so for
      // everyone else's `durable(upTo)` it counts as soon as the entries recorded before it are synced.
      const synced = carried ? this.#journalTail : journal.append(b.entry);
      const counted = synced.then(
        () => this.#durable.journaled(1),
        (err: unknown) => {
          if (!carried) this.#logger?.error({ err }, 'audit journal cannot be written: decisions now wait for the chain');
        },
      );
      this.#journalTail = synced;
      void counted;
    }
    this.#schedule();
    return this.#durable.recorded;
  }

  /**
   * A carried entry whose write did not commit it: journaled now (a line of its own; the chain's
   * writer skips it if the sink or a sweep already appended it). When the journal cannot be written,
   * the wait is for the chain's commit of the entry, as for any entry then.
   */
  async #journalCarried(entry: AuditInput, number: number): Promise<void> {
    const journal = this.#journal;
    if (journal !== undefined) {
      try {
        await journal.append(entry);
        return;
      } catch (err) {
        this.#logger?.error({ err }, 'audit journal cannot be written: a carried entry waits for the chain');
      }
    }
    if (this.#settledCount >= number) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settledWaiters = this.#settledWaiters.filter((w) => w !== waiter);
        reject(new SuiteError('SERVICE_UNAVAILABLE', `audit entry not committed within ${this.#durableWaitMs} ms`));
      }, this.#durableWaitMs);
      timer.unref();
      const waiter = {
        upTo: number,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.#settledWaiters.push(waiter);
      this.#sendNow();
    });
  }

  #complete(e: Entry): AuditInput {
    // A random prefix per sink and a counter: unique across processes, and cheaper than random bytes per entry.
    const id = `aud_${this.#idPrefix}${(this.#idCounter++).toString(36)}`;
    return {
      id,
      timestamp: this.#isoNow(),
      subject: e.subject,
      action: e.action,
      resource: e.resource,
      result: e.result,
      reason: e.reason,
      tenantId: e.tenantId ?? null,
    };
  }

  /** Under load many decisions share a millisecond: format its ISO string once. */
  #isoNow(): string {
    const ms = this.#clock();
    if (ms !== this.#isoMs) {
      this.#isoMs = ms;
      this.#iso = new Date(ms).toISOString();
    }
    return this.#iso;
  }

  #schedule(): void {
    if (this.#scheduled || this.#sending || this.#retryTimer) return;
    // With a journal, entries nobody waits on gather for coalesceMs: they are durable already, and
    // one chain commit for all of them costs one sync instead of one per decision.
    if (this.#mayWait()) {
      if (this.#coalesceTimer) return;
      this.#coalesceTimer = detached(() =>
        setTimeout(() => {
          this.#coalesceTimer = undefined;
          this.#sendNow();
        }, this.#coalesceMs),
      );
      this.#coalesceTimer.unref();
      return;
    }
    this.#sendNow();
  }

  /** The buffer may gather for the coalescing window: journaled, nobody waiting on a commit, not full. */
  #mayWait(): boolean {
    return (
      this.#journal !== undefined &&
      this.#coalesceMs > 0 &&
      this.#waitedOn === 0 &&
      this.#replayLeft === 0 &&
      this.#idle.length === 0 &&
      this.#settledWaiters.length === 0 &&
      this.#buffer.length < this.#maxBatch
    );
  }

  /** Send what is buffered at the next turn of the event loop, whatever the coalescing window. */
  #sendNow(): void {
    if (this.#coalesceTimer) clearTimeout(this.#coalesceTimer);
    this.#coalesceTimer = undefined;
    if (this.#scheduled || this.#sending || this.#retryTimer) return;
    this.#scheduled = true;
    // setImmediate: everything recorded during this turn of the event loop goes in one request.
    // Detached: the batch serves every request of this turn, and its retries none in particular.
    detached(() =>
      setImmediate(() => {
        this.#scheduled = false;
        void this.#send();
      }),
    );
  }

  async #send(): Promise<void> {
    if (this.#sending || this.#closed) return;
    this.#sending = true;
    try {
      while (this.#buffer.length > 0 && !this.#closed) {
        const batch = this.#buffer.slice(0, this.#maxBatch);
        // Also a retry once its oldest entry is 2 s old: the audit chain's leader may have appended a
        // carried entry from the outbox by then (its sweep takes rows 3 s old, writer-actor.ts).
        const retry = this.#retryDelay > 0 || this.#replayLeft > 0 || this.#clock() - (batch[0] as Buffered).at >= LATE_MS;
        // 3 s: a commit takes milliseconds; an append sent as the broker connection died must not
        // hold the backlog for long (a retry is safe: the writer dedupes by entry id).
        const entries = batch.map((b) => b.entry);
        const result = await batchSpan(
          'audit.append',
          batch.map((b) => b.link),
          { 'suite.audit.entries': batch.length },
          () => this.#carrier.request(subjects.auditAppend, { entries, ...(retry ? { retry } : {}) }, { deadlineMs: 3000, again: { entries, retry: true } }),
        );
        if (this.#closed) return;
        if (!result.ok && result.error.code === 'INVALID_REQUEST' && this.#dropRefused(batch) > 0) continue;
        if (!result.ok) {
          this.#retryDelay = Math.min(2000, this.#retryDelay ? this.#retryDelay * 2 : 50);
          if (this.#journal === undefined) this.#durable.failAll('audit trail unavailable; try again shortly');
          this.#logger?.warn(
            { code: result.error.code, reason: result.error.message, transport: result.transport, backlog: this.#buffer.length },
            'audit append failed; will retry',
          );
          this.#retryTimer = setTimeout(() => {
            this.#retryTimer = undefined;
            void this.#send();
          }, this.#retryDelay);
          this.#retryTimer.unref();
          return;
        }
        this.#retryDelay = 0;
        this.#movedAt = this.#clock();
        this.#buffer.splice(0, batch.length);
        this.#admitWaiting();
        this.#replayLeft = Math.max(0, this.#replayLeft - batch.length);
        this.#durable.settled(batch.length);
        this.#settle(batch);
        if (this.#buffer.length === 0) this.#journal?.compact();
        for (const b of batch) b.done?.();
        // What arrived during that commit gathers again rather than going out alone.
        if (this.#buffer.length > 0 && this.#mayWait()) break;
      }
      if (this.#buffer.length > 0) return;
      const idle = this.#idle;
      this.#idle = [];
      for (const f of idle) f();
    } finally {
      this.#sending = false;
      if (this.#buffer.length > 0 && !this.#closed && !this.#retryTimer) this.#schedule();
    }
  }

  /** Room in the backlog again: let in the decisions waiting for it, as many as it has room for. */
  #admitWaiting(): void {
    const room = this.#maxBacklog - this.#buffer.length;
    if (room <= 0 || this.#admissions.length === 0) return;
    for (const admitted of this.#admissions.splice(0, room)) admitted();
  }

  /** Entries out of the buffer for good: count them, and release who waits for them (`committed`). */
  #settle(gone: readonly Buffered[]): void {
    this.#settledCount += gone.length;
    for (const b of gone) if (b.done) this.#waitedOn--;
    if (this.#settledWaiters.length === 0) return;
    const still = [];
    for (const w of this.#settledWaiters) {
      if (w.upTo <= this.#settledCount) w.resolve();
      else still.push(w);
    }
    this.#settledWaiters = still;
  }

  /**
   * A batch refused as invalid: the entries that break their schema (a recorder's bug) would be
   * refused on every retry and hold up the whole trail behind them, so they are taken out and
   * logged with what is wrong; the others are sent again. Answers how many were dropped (none:
   * the refusal was about something else, and the batch is retried as usual).
   */
  #dropRefused(batch: readonly Buffered[]): number {
    const refused = new Set<Buffered>();
    for (const b of batch) {
      const problem = describeMessageProblems(AuditInputSchema, b.entry);
      if (problem === undefined) continue;
      refused.add(b);
      this.#logger?.error({ id: b.entry.id, action: b.entry.action, timestamp: b.entry.timestamp, problem }, 'audit entry refused by its schema; dropped');
      b.done?.(new SuiteError('INTERNAL_ERROR', 'audit entry refused by its schema'));
    }
    if (refused.size > 0) {
      this.#buffer = this.#buffer.filter((b) => !refused.has(b));
      this.#durable.settled(refused.size);
      this.#settle([...refused]);
    }
    return refused.size;
  }
}
