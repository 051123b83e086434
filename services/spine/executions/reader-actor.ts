import { SuiteError } from '../../../bus/index.ts';
import { batchSpan, detached, linkToActive, type PromiseMetrics } from '../../../observability/index.ts';
import type { Bus, Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import { currentTraceKey, findTraceKeys, getExecution, type PublishedKey } from '../../../storage/index.ts';
import type { ExecutionRecord } from '../../../core/chain/index.ts';
import { replyOf } from '../../../actors/base/index.ts';
import { exportPage } from './export-pages.ts';
import { VerificationKeys } from './keys.ts';
import { verifyExecutionChain, verifyRecord, verifyStoredRecord, type ChainResult } from './verify.ts';
import { VerifyPool } from './verify-pool.ts';
import { BusActor } from '../../../actors/base/index.ts';

/**
 * Reads of the execution chain, on any number of replicas (queue group `executions`): one record,
 * verification of one record or of the whole chain, pages of an export, and the published public keys. Verification
 * needs no credential (core rule 3); the edge decides who may ask.
 */
export class ExecutionReaderActor extends BusActor {
  readonly #bus: Bus;
  readonly #storage: Storage;
  /**
   * Whole-chain verifications under way, by key choice. Requests arriving meanwhile share the run
   * (its answer is as of the head it started from), so a public route cannot stack up scans.
   */
  readonly #chainRuns = new Map<string, Promise<ChainResult>>();
  /** The current key's answer while it may be given again (`#currentKey`), and for how long. */
  #current: { answer: Promise<KeyAnswer>; until: number } | undefined;
  readonly #currentKeyTtlMs: number;
  /** Threads for hashes and signatures, one per core, started by the first whole-chain verification. */
  readonly #pool = new VerifyPool();

  readonly #metrics: PromiseMetrics | undefined;

  constructor(o: { bus: Bus; storage: Storage; currentKeyTtlMs?: number; metrics?: PromiseMetrics }) {
    super();
    this.#metrics = o.metrics;
    this.#bus = o.bus;
    this.#storage = o.storage;
    this.#currentKeyTtlMs = o.currentKeyTtlMs ?? CURRENT_KEY_TTL_MS;
  }

  protected subscriptions(): Subscription[] {
    const queue = { queue: 'executions' };
    return [
      this.#bus.serve(
        subjects.executionsGet,
        ({ data }) =>
          replyOf(async () => {
            const record = await getExecution(this.#storage.pool, data.id);
            if (!record) throw new SuiteError('NOT_FOUND', 'no execution with this id');
            return { record };
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsVerify,
        ({ data }) =>
          replyOf(async () => {
            if (data.record !== undefined && data.id !== undefined) throw new SuiteError('INVALID_REQUEST', 'give either record or id, not both');
            const db = this.#storage.pool;
            const keys = () => (data.publicKey !== undefined ? VerificationKeys.pinned(db, data.publicKey) : VerificationKeys.published(db));
            if (data.record !== undefined) return verifyRecord(db, data.record as ExecutionRecord, keys());
            if (data.id !== undefined) return verifyStoredRecord(db, data.id, keys());
            return this.#verifyChain(data.publicKey, keys());
          }),
        queue,
      ),
      this.#bus.serve(
        subjects.executionsKeys,
        ({ data }) =>
          replyOf(async () => {
            if (data.keyId === undefined) return this.#currentKey();
            const key = (await findTraceKeys(this.#storage.pool, [data.keyId]))[0];
            if (!key) throw new SuiteError('NOT_FOUND', 'no trace key with this keyId');
            return publicKeyAnswer(key);
          }),
        queue,
      ),
      this.#bus.serve(subjects.executionsExportPage, ({ data }) => replyOf(() => exportPage(this.#storage.pool, data)), queue),
      // Every replica, not one of the queue: each keeps its own answer.
      this.#bus.subscribe(subjects.executionsKeyPublished, () => {
        this.#current = undefined;
      }),
    ];
  }

  /**
   * The current key's answer, read at most once per `CURRENT_KEY_TTL_MS` and shared by the
   * requests meanwhile: the route is public and polled (auditors, monitors), and each read was a
   * query. A writer that starts to lead announces its key (`executionsKeyPublished`), which drops
   * the kept answer at once; the time bound covers an announcement lost on the way (NATS delivers
   * events at most once). "No key yet" is not kept.
   */
  #currentKey(): Promise<KeyAnswer> {
    const now = performance.now();
    const kept = this.#current;
    if (kept !== undefined && now < kept.until) return kept.answer;
    const answer = currentTraceKey(this.#storage.pool).then((key) => {
      if (!key) throw new SuiteError('SERVICE_UNAVAILABLE', 'no execution writer has published its key yet');
      return publicKeyAnswer(key);
    });
    const entry = { answer, until: now + this.#currentKeyTtlMs };
    this.#current = entry;
    answer.catch(() => {
      if (this.#current === entry) this.#current = undefined;
    });
    return answer;
  }

  protected override async stopped(): Promise<void> {
    await this.#pool.close();
  }

  #verifyChain(pem: string | undefined, keys: VerificationKeys): Promise<ChainResult> {
    const k = pem ?? '';
    let run = this.#chainRuns.get(k);
    if (!run) {
      // On Postgres the threads read over connections of their own (verify.ts).
      const pool = this.#storage.pool;
      const databaseUrl = this.#storage.kind === 'postgres' ? pool.configuration.connectionUri : undefined;
      // One run answers every caller that asks while it lasts: a span of its own, linked to the
      // first caller (the others join it; their traces show their own wait).
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      run = batchSpan('executions.verify-chain', [linkToActive()], {}, () => detached(() => verifyExecutionChain(pool, keys, this.#pool, { databaseUrl })));
      this.#chainRuns.set(k, run);
      run.then(
        (r) => {
          this.#chainRuns.delete(k);
          this.#metrics?.verified(r.valid ? 'valid' : 'invalid', seconds());
        },
        () => {
          this.#chainRuns.delete(k);
          this.#metrics?.verified('error', seconds());
        },
      );
    }
    return run;
  }
}

/**
 * How long an answer naming the current key may be given again. Past it, a reader that missed a
 * writer's announcement (another process, NATS) names the new key at most this late.
 */
const CURRENT_KEY_TTL_MS = 1_000;

type KeyAnswer = ReturnType<typeof publicKeyAnswer>;

/** Spec, "Trace public key response". */
function publicKeyAnswer(k: PublishedKey) {
  return { keyId: k.keyId, algorithm: 'Ed25519' as const, publicKey: k.publicKeyPem, ephemeral: k.ephemeral };
}
