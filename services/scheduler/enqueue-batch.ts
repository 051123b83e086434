import type { CommonQueryMethods } from 'slonik';
import type { NewTask } from './task-store.ts';
import { insertTasks, type InsertOutcome, type QueueCaps } from './enqueue-store.ts';

/** Tasks one enqueue transaction takes at most: bounds its duration, and so the wait of the next. */
const MAX_BATCH = 256;

interface Waiting {
  readonly task: NewTask;
  resolve(outcome: InsertOutcome): void;
  reject(error: unknown): void;
}

/**
 * Enqueues that arrive together share one transaction (group commit, as the chain writer does):
 * the queue caps hold an advisory lock to the commit (task-store.ts, `insertTasks`), so one
 * transaction per task would serialise every enqueue on its own WAL flush. While a transaction runs,
 * the next ones wait here and go together when it ends. A batch that fails (storage down) fails
 * every caller in it; none was answered as accepted.
 */
export class EnqueueBatcher {
  readonly #db: CommonQueryMethods;
  readonly #caps: () => QueueCaps;
  #waiting: Waiting[] = [];
  #running = false;

  constructor(db: CommonQueryMethods, caps: () => QueueCaps) {
    this.#db = db;
    this.#caps = caps;
  }

  enqueue(task: NewTask): Promise<InsertOutcome> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ task, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MAX_BATCH);
        try {
          const outcomes = await insertTasks(
            this.#db,
            batch.map((w) => w.task),
            this.#caps(),
          );
          batch.forEach((w, i) => {
            w.resolve(outcomes[i] as InsertOutcome);
          });
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
