import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../../bus/index.ts';
import { executionHashAt, executionsPageAfter, executionsRangeJson, getExecution, readChainHead, traceKeyIds } from '../../../storage/index.ts';
import { checkExecution, GENESIS_HASH, type ChainVerification, type ExecutionRecord } from '../../../core/chain/index.ts';
import type { VerificationKeys } from './keys.ts';
import { ChainJoin } from './verify-join.ts';
import type { ScanSource, VerifyPool } from './verify-pool.ts';
import type { ScanSummary } from './verify-scan.ts';

/** Records per job of a thread (~40 ms of its time). */
const SLICE = 500;
/**
 * Jobs per thread under way: one being checked and one queued behind it (on Postgres its query
 * already sent), so that no thread waits for the next.
 */
const AHEAD = 2;

export type ChainResult = ChainVerification & { mode: 'chain' };

/**
 * Verify the whole chain in sequence order against the head recorded when it starts (records
 * appended meanwhile lie beyond it and are not judged). Stops at the first failure: its sequence
 * number is `brokenAt` (spec, "Chain verification result").
 *
 * The pool's threads read, hash and check the signatures of the records, one range of seq per job:
 * on Postgres (`databaseUrl`) each thread reads its ranges over a connection of its own; else this
 * thread reads each range as JSON texts (storage/execution-scan.ts) and hands them over unparsed.
 * A thread answers how far its records form an intact run; this thread only joins the runs end to
 * end and judges the record where one broke (ChainJoin). Memory stays bounded by the jobs under way.
 */
export async function verifyExecutionChain(
  db: CommonQueryMethods,
  keys: VerificationKeys,
  pool: VerifyPool,
  o: { databaseUrl?: string | undefined } = {},
): Promise<ChainResult> {
  const head = await readChainHead(db, 'executions');
  if (!head) return { mode: 'chain', valid: true, checked: 0, headHash: GENESIS_HASH };
  // Every published key, once: the records up to the head were signed with keys published before
  // them. The threads get the usable ones; the walk's look-up says why a record's key is not.
  await keys.prefetch(await traceKeyIds(db));
  const usable = keys.usableKeys();
  const scan = (source: ScanSource) => pool.scan({ source, keys: usable, pinned: keys.pinnedKey });
  // Pages read on the pool one after another, so that other queries get their turn in between.
  let reads: Promise<unknown> = Promise.resolve();
  const start = (from: number): Promise<ScanSummary> => {
    const to = Math.min(from + SLICE - 1, head.seq);
    if (o.databaseUrl !== undefined) return scan({ url: o.databaseUrl, from, to });
    const page = reads.then(() => executionsRangeJson(db, from, to));
    reads = page.catch(() => undefined);
    return page.then((json) => scan({ json }));
  };
  const join = new ChainJoin(keys.lookup);
  const underWay: Promise<ScanSummary>[] = [];
  let next = 1;
  let failed = false;
  for (;;) {
    while (underWay.length < pool.size * AHEAD && next <= head.seq) {
      const summary = start(next);
      // A job left behind once the walk has stopped must not go unobserved.
      summary.catch(() => undefined);
      underWay.push(summary);
      next += SLICE;
    }
    const summary = underWay.shift();
    if (!summary) break;
    if (!join.take(await summary)) {
      failed = true;
      break;
    }
  }
  // Records missing at the end: as a page read would, name the first record found beyond them.
  if (!failed && join.lastSeq < head.seq) {
    const [beyond] = await executionsPageAfter(db, join.lastSeq, 1);
    if (beyond) failed = !join.push(beyond);
  }
  const result = join.finish({ seq: head.seq, hash: head.hash });
  const why = failed ? keys.takeRetiredReason() : undefined;
  return { mode: 'chain', ...result, ...(why ? { reason: why } : {}) };
}

export interface RecordResult {
  mode: 'record';
  valid: boolean;
  checked: 1;
  id: string;
  seq: number;
  hash: string;
  keyId: string;
  /** The chain holds a record with this id and this hash. */
  inChain: boolean;
  brokenAt?: number;
  brokenId?: string;
  reason?: string;
  contentIntact?: boolean;
}

/**
 * One record: its content against its hash, its signature against the key, and (`linkTo`, when the
 * record is read from the chain) its `prevHash` against the stored predecessor.
 */
export async function verifyRecord(db: CommonQueryMethods, r: ExecutionRecord, keys: VerificationKeys, linkTo?: string): Promise<RecordResult> {
  await keys.prefetch([r.keyId]);
  const verdict = checkExecution(r, { seq: r.seq, prevHash: linkTo ?? r.prevHash }, keys.lookup);
  const contentIntact = verdict.ok || verdict.contentIntact;
  const stored = contentIntact && /^exec_[0-9a-f]{32}$/.test(r.id) ? await getExecution(db, r.id) : null;
  const base = { mode: 'record' as const, checked: 1 as const, id: r.id, seq: r.seq, hash: r.hash, keyId: r.keyId, inChain: stored?.hash === r.hash };
  if (verdict.ok) return { ...base, valid: true };
  const reason = keys.takeRetiredReason() ?? verdict.reason;
  return { ...base, valid: false, brokenAt: r.seq, brokenId: r.id, reason, contentIntact: verdict.contentIntact };
}

/** A stored record by id, including its link to the record before it. */
export async function verifyStoredRecord(db: CommonQueryMethods, id: string, keys: VerificationKeys): Promise<RecordResult> {
  const r = await getExecution(db, id);
  if (!r) throw new SuiteError('NOT_FOUND', 'no execution with this id');
  const prev = r.seq === 1 ? GENESIS_HASH : await executionHashAt(db, r.seq - 1);
  if (prev === null) {
    return {
      mode: 'record',
      valid: false,
      checked: 1,
      id: r.id,
      seq: r.seq,
      hash: r.hash,
      keyId: r.keyId,
      inChain: true,
      brokenAt: r.seq - 1,
      reason: `record ${r.seq - 1} is missing`,
      contentIntact: true,
    };
  }
  return verifyRecord(db, r, keys, prev);
}
