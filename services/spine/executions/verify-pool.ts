import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import type { ScanSummary } from './verify-scan.ts';

/**
 * Where a thread gets the records of a job: a page the main thread read (`executionsRangeJson`,
 * storage/execution-scan.ts), or seq `from` to `to` read over the thread's own connection to the
 * Postgres at `url`.
 */
export type ScanSource = { json: string } | { url: string; from: number; to: number };

export interface ScanJob {
  source: ScanSource;
  /** The usable keys by keyId; `pinned`, when given, is used for every record instead. */
  keys: ReadonlyMap<string, KeyObject>;
  pinned?: KeyObject | undefined;
}

type Reply = { id: number; summary: ScanSummary } | { id: number; error: string };

interface Pending {
  thread: Thread;
  resolve(summary: ScanSummary): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  jobs: number;
}

/**
 * A thread judges one row at a time and keeps none: a small heap suffices (~11 MB of it is the
 * thread's code), and without a cap V8 lets each thread's heap grow far beyond what it uses before
 * collecting, and the process's memory with it. A larger young generation (16 MB) changed nothing
 * measurable in time (verifying 1,000,000 records on Postgres: 22.9k/s against 23.1k/s).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 };

/** Threads left without a job this long end (~25 MB of memory each, and Postgres connections). */
const IDLE_MS = 30_000;

/**
 * Worker threads that read, hash and check the signatures of execution records, one per core:
 * chain verification spends nearly all its time there (a signature check is ~70 µs), so spreading
 * it over the cores is what makes a large chain verify quickly, and it keeps the event loop of the
 * process free to answer other requests meanwhile. Threads start on first use and end once idle
 * for `idleMs`, or at `close`; a job goes to the thread with the fewest jobs.
 */
export class VerifyPool {
  readonly #size: number;
  readonly #idleMs: number;
  readonly #threads: (Thread | undefined)[] = [];
  #jobId = 0;
  readonly #pending = new Map<number, Pending>();
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(size = availableParallelism(), o: { idleMs?: number } = {}) {
    this.#size = Math.max(1, size);
    this.#idleMs = o.idleMs ?? IDLE_MS;
  }

  get size(): number {
    return this.#size;
  }

  /** Threads running now. */
  get running(): number {
    return this.#threads.filter(Boolean).length;
  }

  scan(job: ScanJob): Promise<ScanSummary> {
    if (this.#closed) return Promise.reject(new Error('verification pool closed'));
    clearTimeout(this.#idleTimer);
    const thread = this.#thread();
    const id = ++this.#jobId;
    return new Promise<ScanSummary>((resolve, reject) => {
      thread.jobs++;
      this.#pending.set(id, { thread, resolve, reject });
      thread.worker.postMessage({ id, source: job.source, keys: [...job.keys], pinned: job.pinned });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const workers = this.#threads.flatMap((t) => (t ? [t.worker] : []));
    this.#threads.length = 0;
    for (const p of this.#pending.values()) p.reject(new Error('verification pool closed'));
    this.#pending.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** The least busy thread, started on first need. */
  #thread(): Thread {
    let best: Thread | undefined;
    for (let i = 0; i < this.#size; i++) {
      const t = this.#threads[i] ?? this.#start(i);
      if (!best || t.jobs < best.jobs) best = t;
    }
    return best as Thread;
  }

  #start(i: number): Thread {
    const worker = new Worker(new URL('./verify-worker.ts', import.meta.url), { resourceLimits: WORKER_LIMITS });
    const thread: Thread = { worker, jobs: 0 };
    worker.on('message', (m: Reply) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      thread.jobs--;
      if (this.#pending.size === 0) this.#retireWhenIdle();
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.summary);
    });
    // A thread that dies takes its jobs with it: fail them (the verification reports an error
    // rather than a verdict), and start a fresh thread next time.
    const failAll = (err: Error) => {
      if (this.#threads[i] === thread) this.#threads[i] = undefined;
      for (const [id, p] of this.#pending) {
        if (p.thread !== thread) continue;
        this.#pending.delete(id);
        p.reject(err);
      }
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (!this.#closed) failAll(new Error(`verification thread exited with code ${code}`));
    });
    worker.unref();
    this.#threads[i] = thread;
    return thread;
  }

  #retireWhenIdle(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#closed || this.#pending.size > 0) return;
      for (let i = 0; i < this.#threads.length; i++) {
        const t = this.#threads[i];
        this.#threads[i] = undefined;
        // Its 'exit' then finds no job of its own to fail.
        void t?.worker.terminate();
      }
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}
