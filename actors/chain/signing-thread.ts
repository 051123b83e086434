import { Worker } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';

interface Pending {
  resolve(signatures: string[]): void;
  reject(err: Error): void;
}

/**
 * Ed25519 signatures computed on a thread of their own. The chain writer seals a batch (canonical
 * JSON and SHA-256, which link the records and must stay in order) on its own thread and has the
 * batch's hashes signed here, while the previous batch commits: signing was the largest single
 * cost of an append on the thread that also serves HTTP (about 14% of it under load). The thread
 * starts on first use, holds only the private key, and is restarted after a failure.
 */
export class SigningThread {
  readonly #key: KeyObject;
  readonly #script: URL;
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  /** `script`: the thread's code, sign-worker.ts unless a test substitutes one. */
  constructor(privateKey: KeyObject, script = new URL('./sign-worker.ts', import.meta.url)) {
    this.#key = privateKey;
    this.#script = script;
  }

  /** Base64 signatures of the 32-byte digests given in hex, in their order. */
  sign(hashesHex: readonly string[]): Promise<string[]> {
    if (this.#closed) return Promise.reject(new Error('signing thread closed'));
    if (hashesHex.length === 0) return Promise.resolve([]);
    const digests = new Uint8Array(hashesHex.length * 32);
    for (let i = 0; i < hashesHex.length; i++) {
      if (Buffer.from(digests.buffer, i * 32, 32).write(hashesHex[i] as string, 'hex') !== 32) {
        return Promise.reject(new TypeError('a hash to sign is not 64 hex digits'));
      }
    }
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#thread().postMessage({ id, digests }, [digests.buffer]);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#failAll(new Error('signing thread closed'));
    const w = this.#worker;
    this.#worker = undefined;
    await w?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(this.#script, {
      workerData: { key: this.#key },
      // It holds one batch of digests at a time.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    w.on('message', (m: { id: number; signatures: Uint8Array }) => {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (!p) return;
      const bytes = Buffer.from(m.signatures.buffer, m.signatures.byteOffset, m.signatures.byteLength);
      const out: string[] = [];
      for (let at = 0; at < bytes.length; at += 64) out.push(bytes.toString('base64', at, at + 64));
      p.resolve(out);
    });
    // A thread that dies takes its batches with it: they fail (the writer refuses those appends)
    // and the next batch starts a fresh thread.
    const gone = (err: Error) => {
      if (this.#worker === w) this.#worker = undefined;
      this.#failAll(err);
    };
    w.on('error', gone);
    w.on('exit', (code) => gone(new Error(`signing thread exited with code ${code}`)));
    w.unref();
    this.#worker = w;
    return w;
  }

  #failAll(err: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(err);
  }
}
