import type { Logger } from 'pino';
import { backgroundSpan, detached } from '../../observability/index.ts';
import type { Storage } from '../../storage/index.ts';
import { nextAfterFiring } from '../../core/scheduling/index.ts';
import { advanceSchedules, claimDueSchedules, earliestNextRun } from './schedule-store.ts';
import { insertFirings } from './task-store.ts';
import { insertEvents, type NewEvent } from './event-store.ts';

export interface TickerOptions {
  readonly storage: Storage;
  readonly logger: Logger;
  /** Longest sleep between looks at the table: bounds how late a schedule made by another replica fires. */
  readonly maxSleepMs: number;
  /** Told of the firings just enqueued: their due times (epoch ms) and how late each was enqueued. */
  readonly onFired: (firings: { readonly dueAt: readonly number[]; readonly latenessMs: readonly number[] }) => void;
  /** The events of each committed batch of firings (for the live feed). */
  readonly onEvents?: (events: readonly NewEvent[]) => void;
}

const BATCH = 1000;

/**
 * Firings are claimed and enqueued up to this long before they are due, runnable at their due time:
 * 1,000 firings take a PGlite transaction about a second and a half, and a firing recorded after its
 * due time is late by that much. A schedule paused or deleted within this window drops the firing.
 */
export const FIRING_LOOKAHEAD_MS = 2000;

/**
 * The cron clock of one replica. It sleeps until the earliest next run (or `maxSleepMs`), then claims
 * what is due in one transaction: due rows locked with SKIP LOCKED, each moved to its next run (the
 * catch-up rule: one firing, however many were missed) and a task enqueued per firing, unique per
 * (schedule, due time). Replicas racing for the same row: one locks it, the others skip it, and when
 * the lock is released `next_run_at` is already in the future. So each firing is enqueued once.
 */
export class ScheduleTicker {
  readonly #o: TickerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(o: TickerOptions) {
    this.#o = o;
  }

  start(): void {
    this.#arm(0);
  }

  /** Look now (a schedule was just made or resumed here). */
  wake(): void {
    if (this.#running === undefined) this.#arm(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #arm(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    // Detached: a wake from a request (a schedule made) must not put every later tick in its trace.
    this.#timer = detached(() =>
      setTimeout(() => {
        this.#running = backgroundSpan('scheduler.tick', () => this.#tick()).finally(() => {
          this.#running = undefined;
        });
      }, ms),
    );
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    let sleep = this.#o.maxSleepMs;
    try {
      let claimed: number;
      do {
        claimed = await this.#claimBatch();
      } while (claimed === BATCH && !this.#stopped);
      const next = await earliestNextRun(this.#o.storage.pool);
      if (next !== null) sleep = Math.min(sleep, Math.max(1, Date.parse(next) - FIRING_LOOKAHEAD_MS - Date.now()));
    } catch (err) {
      this.#o.logger.error({ err }, 'scheduler tick failed; trying again');
    }
    this.#arm(sleep);
  }

  async #claimBatch(): Promise<number> {
    let events: NewEvent[] = [];
    const due = await this.#o.storage.pool.transaction(async (tx) => {
      const rows = await claimDueSchedules(tx, BATCH, FIRING_LOOKAHEAD_MS);
      if (rows.length === 0) return rows;
      await advanceSchedules(
        tx,
        rows.map((r) => ({
          namespace: r.namespace,
          id: r.id,
          next: nextAfterFiring(r.cron, r.timezone ?? undefined, new Date(r.dueAt), new Date(r.now))?.toISOString() ?? null,
        })),
      );
      await insertFirings(
        tx,
        rows.map((r) => ({
          namespace: r.namespace,
          scheduleId: r.id,
          dueAt: r.dueAt,
          task: r.task,
          retry: r.retry,
          timeoutMs: r.timeoutMs,
          owner: r.owner,
        })),
      );
      events = rows.map((r) => ({
        namespace: r.namespace,
        kind: 'schedule-fired',
        scheduleId: r.id,
        detail: `due ${r.dueAt}, enqueued ${describeLateness(r.latenessMs)}`,
      }));
      await insertEvents(tx, events);
      return rows;
    });
    if (due.length > 0) {
      this.#o.onEvents?.(events);
      // Lateness as the queue sees it: from the due time to the firing committed (0 if ahead of it).
      const committed = Date.now();
      const dueAt = due.map((r) => Date.parse(r.dueAt));
      this.#o.onFired({ dueAt, latenessMs: dueAt.map((d) => Math.max(0, committed - d)) });
    }
    return due.length;
  }
}

function describeLateness(ms: number): string {
  const rounded = Math.round(ms);
  return rounded <= 0 ? `${-rounded} ms ahead` : `${rounded} ms late`;
}
