import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import type { ExecutionRecord, PrecomputedChecks } from '../chain/index.ts';

/** One slice of records sent to a thread, with the keys they may name. */
export interface VerifyJob {
  id: number;
  records: readonly ExecutionRecord[];
  keys: ReadonlyArray<readonly [string, KeyObject]>;
  pinned: KeyObject | undefined;
}

interface Pending {
  resolve(verdicts: Uint8Array): void;
  reject(err: Error): void;
}

/**
 * A thread holds one slice at a time, so a small heap suffices; without a cap V8 lets each thread's
 * heap grow far beyond what it uses before collecting, and the process's memory with it (verifying
 * 100,000 records on PGlite, peak resident memory of the process: 385–432 MB uncapped, 334–351 MB
 * capped).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 };

/** Records per message: large enough to amortise a message, small enough to share a page evenly. */
const SLICE = 250;

/**
 * Worker threads that check hashes and Ed25519 signatures of execution records, one per core: chain
 * verification spends nearly all its time there (a signature check is ~100 µs), so spreading it over
 * the cores is what makes a large chain verify quickly, and it keeps the event loop of the process
 * free to answer other requests meanwhile. Threads start on first use and live until `close`.
 */
export class VerifyPool {
  readonly #size: number;
  #workers: (Worker | undefined)[] = [];
  #next = 0;
  #jobId = 0;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  constructor(size = availableParallelism()) {
    this.#size = Math.max(1, size);
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Content and signature checks of `records`, in their order. `keys` are the usable keys by keyId;
   * `pinned`, when given, is used for every record instead.
   */
  async check(records: readonly ExecutionRecord[], keys: ReadonlyMap<string, KeyObject>, pinned?: KeyObject): Promise<PrecomputedChecks[]> {
    if (this.#closed) throw new Error('verification pool closed');
    const keyList = [...keys];
    const slices: Promise<Uint8Array>[] = [];
    for (let at = 0; at < records.length; at += SLICE) {
      slices.push(this.#run({ id: ++this.#jobId, records: records.slice(at, at + SLICE), keys: keyList, pinned }));
    }
    const out: PrecomputedChecks[] = [];
    for (const verdicts of await Promise.all(slices)) {
      for (const v of verdicts) out.push({ contentOk: (v & 1) !== 0, signatureOk: (v & 2) !== 0 });
    }
    return out;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#workers;
    this.#workers = [];
    for (const p of this.#pending.values()) p.reject(new Error('verification pool closed'));
    this.#pending.clear();
    await Promise.all(workers.map((w) => w?.terminate()));
  }

  #run(job: VerifyJob): Promise<Uint8Array> {
    const worker = this.#worker();
    return new Promise((resolve, reject) => {
      this.#pending.set(job.id, { resolve, reject });
      worker.postMessage(job);
    });
  }

  /** Round robin over the threads; each started on first need. */
  #worker(): Worker {
    const i = this.#next++ % this.#size;
    let w = this.#workers[i];
    if (!w) {
      w = new Worker(new URL('./verify-worker.ts', import.meta.url), { resourceLimits: WORKER_LIMITS });
      w.on('message', (m: { id: number; verdicts: Uint8Array }) => {
        const p = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        p?.resolve(m.verdicts);
      });
      // A thread that dies takes its jobs with it: fail them all (the verification reports an
      // error rather than a verdict), and start a fresh thread next time.
      const failAll = (err: Error) => {
        if (this.#workers[i] === w) this.#workers[i] = undefined;
        for (const [id, p] of this.#pending) {
          this.#pending.delete(id);
          p.reject(err);
        }
      };
      w.on('error', failAll);
      w.on('exit', (code) => { if (!this.#closed) failAll(new Error(`verification thread exited with code ${code}`)); });
      w.unref();
      this.#workers[i] = w;
    }
    return w;
  }
}
