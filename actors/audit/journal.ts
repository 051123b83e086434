import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditInputSchema, describeMessageProblems, type AuditInput } from '../../bus/index.ts';
import { lockDataDir } from '../../storage/index.ts';

const FILE = 'entries.jsonl';
/** Emptied once everything in it is committed and it has grown past this. */
const COMPACT_BYTES = 4 * 1024 * 1024;

/**
 * The audit sink's local journal: every entry is appended here, one JSON line each, and synced
 * (fdatasync) before the decision it records is answered; entries the chain has not taken yet are
 * read back at the next start and committed then, in order (docs/DECISIONS.md, "Audit entries of
 * answered decisions"). Lines written in the same turn share one write and one sync (group commit).
 * The folder is locked by this process (storage's data-folder lock): one journal per process.
 *
 * Written here rather than taken from a library: what it needs is an append, a sync and a truncate
 * on one file, with the entries' own schema checked when read back; a log library brings rotation
 * and formats, not durability.
 */
export class AuditJournal {
  readonly #file: FileHandle;
  readonly #unlock: () => Promise<void>;
  #queued: string[] = [];
  #waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  #writing: Promise<void> | undefined;
  #bytes: number;
  #failed: Error | undefined;
  /** A drain is due at the next turn (append). */
  #starting = false;

  private constructor(file: FileHandle, unlock: () => Promise<void>, bytes: number) {
    this.#file = file;
    this.#unlock = unlock;
    this.#bytes = bytes;
  }

  /** Opens (and locks) `<folder>/entries.jsonl`; answers it and the entries it already holds, oldest first. */
  static async open(folder: string): Promise<{ journal: AuditJournal; kept: AuditInput[]; unreadable: number }> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const unlock = await lockDataDir(folder);
    try {
      const file = await open(join(folder, FILE), 'a+', 0o600);
      const text = await file.readFile('utf8');
      const kept: AuditInput[] = [];
      let unreadable = 0;
      for (const line of text.split('\n')) {
        if (line === '') continue;
        // A torn last line (killed mid-write, before its sync): its decision was never answered.
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          unreadable++;
          continue;
        }
        if (describeMessageProblems(AuditInputSchema, entry) === undefined) kept.push(entry as AuditInput);
        else unreadable++;
      }
      return { journal: new AuditJournal(file, unlock, Buffer.byteLength(text)), kept, unreadable };
    } catch (err) {
      await unlock();
      throw err;
    }
  }

  /** Resolves once `entry` is on disk (synced); rejects if the journal cannot be written. */
  append(entry: AuditInput): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    this.#queued.push(`${JSON.stringify(entry)}\n`);
    const synced = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    // From the next turn of the event loop: the entries of one request recorded in this one (a
    // validate's caller and the token it decides on: the guard, then the handler, with no I/O
    // between) share one write and one sync instead of paying one each, in series.
    if (this.#writing === undefined && !this.#starting) {
      this.#starting = true;
      setImmediate(() => {
        this.#starting = false;
        this.#writing ??= this.#drain();
      });
    }
    return synced;
  }

  /** Everything in it is committed: empty it when it has grown large (cheap to keep, slow to read back). */
  compact(): void {
    if (this.#bytes < COMPACT_BYTES || this.#queued.length > 0 || this.#writing || this.#starting) return;
    this.#writing = (async () => {
      try {
        await this.#file.truncate(0);
        await this.#file.datasync();
        this.#bytes = 0;
      } finally {
        this.#writing = undefined;
        if (this.#queued.length > 0) this.#writing = this.#drain();
      }
    })();
  }

  /** Empties it: every entry it held is committed (a clean shutdown). */
  async clear(): Promise<void> {
    await this.#settled();
    await this.#file.truncate(0);
    await this.#file.datasync();
    this.#bytes = 0;
  }

  async close(): Promise<void> {
    await this.#settled();
    await this.#file.close();
    await this.#unlock();
  }

  async #settled(): Promise<void> {
    if (this.#queued.length > 0) this.#writing ??= this.#drain();
    while (this.#writing !== undefined) await this.#writing.catch(() => undefined);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queued.length > 0) {
        const lines = this.#queued.join('');
        const waiters = this.#waiters;
        this.#queued = [];
        this.#waiters = [];
        try {
          await this.#file.appendFile(lines);
          await this.#file.datasync();
          this.#bytes += Buffer.byteLength(lines);
          for (const w of waiters) w.resolve();
        } catch (err) {
          // A disk that refuses a write will refuse the next: every later append fails too.
          this.#failed = err as Error;
          for (const w of [...waiters, ...this.#waiters]) w.reject(this.#failed);
          this.#waiters = [];
          this.#queued = [];
          return;
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }
}
