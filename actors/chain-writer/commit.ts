import type { CommonQueryMethods } from 'slonik';
import { NOTHING_DONE, OUTCOME_UNKNOWN, SuiteError } from '../../bus/index.ts';
import { readChainHead, storageOutage, storageOutageMessage, type HeadMove, type Storage } from '../../storage/index.ts';
import { batchSpan } from '../../observability/index.ts';
import type { Pending } from './queue.ts';

/**
 * How one chain's records are made and stored. `seal` is pure (hash, and for executions sign);
 * `insert` writes a batch and moves the head in one statement, fenced by `move`
 * (storage/chains.ts headMoveCte), answering the rows inserted: none when the head could not move.
 */
export interface ChainSpec<Input, Rec extends { seq: number; hash: string }> {
  readonly chain: string;
  seal(input: Input, seq: number, prevHash: string): Rec;
  /**
   * Completes a sealed batch before it is committed, with work that need not be done in chain order
   * on this thread (executions: the signatures, on a signing thread). Optional.
   */
  complete?(records: Rec[]): Promise<void>;
  insert(db: CommonQueryMethods, records: readonly Rec[], move: HeadMove): Promise<number>;
}

/** A batch hashed on top of `from`, not yet committed; `complete` settles once it is also signed. */
export interface Sealed<Input, Rec> {
  batch: Pending<Input, Rec>[];
  from: { seq: number; hash: string };
  records: Rec[];
  last: Rec;
  complete: Promise<void>;
  /** How long its statement took, once it was sent. */
  seconds?: number;
}

type Head = { seq: number; hash: string };

/**
 * Hash a batch's inputs on top of `from` and start completing it (signing, on the signing thread):
 * the next batch can be hashed on top of this one at once, since a record's hash does not depend
 * on signatures. A batch that cannot be hashed is refused.
 */
export function sealBatch<Input, Rec extends Head>(
  spec: ChainSpec<Input, Rec>,
  batch: Pending<Input, Rec>[],
  from: Head,
  logger: { error(o: object, m?: string): void } | undefined,
): Sealed<Input, Rec> | undefined {
  const records: Rec[] = [];
  let prev = from.hash;
  let seq = from.seq;
  try {
    for (const p of batch) {
      for (const input of p.inputs) {
        const rec = spec.seal(input, ++seq, prev);
        records.push(rec);
        prev = rec.hash;
      }
    }
  } catch (err) {
    // A record that cannot be sealed (hashed) is a bug or an input no check caught: say which.
    logger?.error({ err, chain: spec.chain, inputs: batch.length }, 'chain records could not be sealed; appends refused');
    fail(batch, new SuiteError('SERVICE_UNAVAILABLE', `append refused: its record could not be sealed; ${NOTHING_DONE}`, { cause: err }));
    return undefined;
  }
  const complete = spec.complete?.(records) ?? Promise.resolve();
  // Awaited by the commit; a failure is its failure, and must not count as unhandled before that.
  complete.catch(() => undefined);
  return { batch, from: { seq: from.seq, hash: from.hash }, records, last: records[records.length - 1] as Rec, complete };
}

/**
 * One statement: the head's fenced compare-and-set and the insert commit together or not at all.
 * It is sent once the batch is signed and the batch it was sealed on (`after`) has committed:
 * statements reach the database one at a time and in chain order, whatever connection each takes.
 * A batch sealed on one that failed is not sent: it fails as fenced, and is sealed anew.
 */
export function commitSealed<Input, Rec extends Head>(
  o: { storage: Storage; spec: ChainSpec<Input, Rec>; holder: string; epoch: number },
  sealed: Sealed<Input, Rec>,
  after: Promise<unknown> | undefined,
): Promise<void> {
  const { spec } = o;
  const attributes = {
    'suite.chain': spec.chain,
    'suite.chain.records': sealed.records.length,
    'suite.chain.seq.first': sealed.from.seq + 1,
    'suite.chain.seq.last': sealed.last.seq,
  };
  return batchSpan(
    `chain.commit ${spec.chain}`,
    sealed.batch.map((p) => p.link),
    attributes,
    () => commitStatement(o, sealed, after),
  );
}

async function commitStatement<Input, Rec extends Head>(
  o: { storage: Storage; spec: ChainSpec<Input, Rec>; holder: string; epoch: number },
  sealed: Sealed<Input, Rec>,
  after: Promise<unknown> | undefined,
): Promise<void> {
  const { storage, spec, holder } = o;
  const { from, records, last } = sealed;
  await sealed.complete;
  if (after && (await after) !== undefined) throw fenced();
  const started = performance.now();
  const inserted = await spec.insert(storage.pool, records, {
    chain: spec.chain,
    fromSeq: from.seq,
    fromHash: from.hash,
    toSeq: last.seq,
    toHash: last.hash,
    holder,
    epoch: o.epoch,
  });
  sealed.seconds = (performance.now() - started) / 1000;
  if (inserted === 0) throw fenced();
  if (inserted !== records.length) throw new Error(`chain ${spec.chain}: ${inserted} of ${records.length} records inserted`);
}

/**
 * The head as stored, re-read after a failed commit (its outcome may be unknown: connection lost
 * mid-commit), and whether another writer moved it (the head records the epoch of its last mover).
 */
export async function rereadHead(storage: Storage, chain: string, epoch: number, known: Head): Promise<{ head: Head; byOther: boolean }> {
  const head = await readChainHead(storage.pool as CommonQueryMethods, chain);
  if (!head) throw new Error(`chain ${chain} has no head row`);
  const byOther = head.epoch !== epoch && (head.seq !== known.seq || head.hash !== known.hash);
  return { head: { seq: head.seq, hash: head.hash }, byOther };
}

/** What becomes of a batch settled after a failure: committed after all, sealed anew, or refused. */
export type Settlement = 'committed' | 'again' | 'failed';

/**
 * After the oldest commit under way failed (`outcomes[0]`, the others' outcomes after it), with the
 * head re-read: which failures were commits after all (the connection lost once COMMIT was sent).
 * Every batch up to the one the head ends on is in the chain, since each commit extends the one
 * before it or fails. A fenced batch was certainly not written (the head was not where it was
 * sealed): it is sealed anew. Any other failure may have been a commit after all: its callers are told.
 */
export function settleAfterFailure(lasts: readonly Head[], outcomes: readonly unknown[], headHash: string): Settlement[] {
  const reached = lasts.findLastIndex((last, i) => outcomes[i] === undefined || last.hash === headHash);
  return outcomes.map((outcome, i) => (outcome === undefined || i <= reached ? 'committed' : isFenced(outcome) ? 'again' : 'failed'));
}

/**
 * Refuse a batch's callers. A failure that is not one of ours may have been a commit whose answer
 * was lost and which the head could not be re-read to confirm: unless the database's own error
 * says nothing was done (refused before the request), the answer says the outcome is unknown, and
 * the edge names the Idempotency-Key to retry with (docs/ERRORS.md, "Outcome unknown").
 */
export function fail<Input, Rec>(batch: readonly Pending<Input, Rec>[], err: unknown): void {
  const outage = storageOutage(err);
  const message = outage ? storageOutageMessage(outage) : `append failed; ${OUTCOME_UNKNOWN}: it may have been carried out`;
  const e = err instanceof SuiteError ? err : new SuiteError('SERVICE_UNAVAILABLE', message, { cause: err });
  for (const p of batch) p.reject(e);
}

/** What a commit came to: undefined when it committed, else why not. */
export function settled(commit: Promise<void>): Promise<unknown> {
  return commit.then(
    () => undefined,
    (err: unknown) => err ?? new Error('commit failed'),
  );
}

function fenced(): SuiteError {
  return new SuiteError('SERVICE_UNAVAILABLE', 'chain writer was fenced', { cause: new FencedError() });
}

export function isFenced(err: unknown): boolean {
  return err instanceof SuiteError && err.cause instanceof FencedError;
}

class FencedError extends Error {
  constructor() {
    super('chain head moved or lease lost');
    this.name = 'FencedError';
  }
}
