import { randomBytes } from 'node:crypto';
import type { Bus } from '../../bus/index.ts';
import { subjects, type AuditInput } from '../../bus/index.ts';

export interface AuditBatcherOptions {
  bus: Bus;
  /** Most entries in one append request. */
  maxBatch?: number;
  /** Entries held while the writer is unreachable; beyond this the sink reports itself unhealthy. */
  maxBacklog?: number;
  logger?: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
  clock?: () => number;
}

/**
 * Sends audit entries to the chain writer in batches: entries recorded in the same turn of the
 * event loop travel in one bus request, and the writer commits them in one statement. Entries
 * are kept and retried while the writer is unreachable (a failover); `healthy()` turns false when
 * the backlog is full, and callers then fail closed rather than act unaudited.
 */
export class AuditBatcher {
  readonly #bus: Bus;
  readonly #maxBatch: number;
  readonly #maxBacklog: number;
  readonly #logger: AuditBatcherOptions['logger'];
  readonly #clock: () => number;
  #buffer: Array<{ entry: AuditInput; done?: (err?: Error) => void }> = [];
  #sending = false;
  #scheduled = false;
  #retryDelay = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #idle: Array<() => void> = [];
  readonly #idPrefix = randomBytes(9).toString('base64url');
  #idCounter = 0;
  #isoMs = Number.NaN;
  #iso = '';

  constructor(o: AuditBatcherOptions) {
    this.#bus = o.bus;
    this.#maxBatch = o.maxBatch ?? 2000;
    this.#maxBacklog = o.maxBacklog ?? 200_000;
    this.#logger = o.logger;
    this.#clock = o.clock ?? Date.now;
  }

  /** Queue an entry; does not wait for the commit. */
  record(entry: Omit<AuditInput, 'timestamp' | 'tenantId' | 'id'> & { tenantId?: string | null }): void {
    this.#buffer.push({ entry: this.#complete(entry) });
    this.#schedule();
  }

  /** Queue an entry and resolve once it is committed to the chain (for writes such as issue and revoke). */
  recordAndWait(entry: Omit<AuditInput, 'timestamp' | 'tenantId' | 'id'> & { tenantId?: string | null }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#buffer.push({ entry: this.#complete(entry), done: (err) => (err ? reject(err) : resolve()) });
      this.#schedule();
    });
  }

  healthy(): boolean {
    return this.#buffer.length < this.#maxBacklog;
  }

  get backlog(): number {
    return this.#buffer.length;
  }

  /** Resolves when everything recorded so far has been committed (or the timeout passes). */
  async flush(timeoutMs = 10_000): Promise<boolean> {
    if (this.#buffer.length === 0 && !this.#sending) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Stop retrying; entries still buffered are reported and their waiters rejected. */
  close(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#buffer.length > 0) this.#logger?.error({ pending: this.#buffer.length }, 'audit entries not committed at shutdown');
    for (const b of this.#buffer) b.done?.(new Error('audit sink closed'));
    this.#buffer = [];
  }

  #complete(e: Omit<AuditInput, 'timestamp' | 'tenantId' | 'id'> & { tenantId?: string | null }): AuditInput {
    // A random prefix per sink and a counter: unique across processes, and cheaper than random bytes per entry.
    const id = `aud_${this.#idPrefix}${(this.#idCounter++).toString(36)}`;
    return {
      id, timestamp: this.#isoNow(), subject: e.subject, action: e.action, resource: e.resource,
      result: e.result, reason: e.reason, tenantId: e.tenantId ?? null,
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
    this.#scheduled = true;
    // setImmediate: everything recorded during this turn of the event loop goes in one request.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#send();
    });
  }

  async #send(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.slice(0, this.#maxBatch);
        const retry = this.#retryDelay > 0;
        // 3 s: a commit takes milliseconds; an append sent as the broker connection died must not
        // hold the backlog for long (a retry is safe: the writer dedupes by entry id).
        const result = await this.#bus.request(subjects.auditAppend, { entries: batch.map((b) => b.entry), ...(retry ? { retry } : {}) }, { timeoutMs: 3000 });
        if (!result.ok) {
          this.#retryDelay = Math.min(2000, this.#retryDelay ? this.#retryDelay * 2 : 50);
          this.#logger?.warn({ code: result.error.code, transport: result.transport, backlog: this.#buffer.length }, 'audit append failed; will retry');
          this.#retryTimer = setTimeout(() => {
            this.#retryTimer = undefined;
            void this.#send();
          }, this.#retryDelay);
          this.#retryTimer.unref();
          return;
        }
        this.#retryDelay = 0;
        this.#buffer.splice(0, batch.length);
        for (const b of batch) b.done?.();
      }
      const idle = this.#idle;
      this.#idle = [];
      for (const f of idle) f();
    } finally {
      this.#sending = false;
    }
  }
}
