import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../bus/errors.ts';
import { executionHashAt, executionsPageAfter, getExecution, readChainHead } from '../../storage/index.ts';
import { checkExecution, ExecutionChainVerifier, GENESIS_HASH, type ChainVerification, type ExecutionRecord } from '../chain/index.ts';
import type { VerificationKeys } from './keys.ts';
import type { VerifyPool } from './verify-pool.ts';

/**
 * Records read per query; memory stays bounded by two pages (one verified, one read ahead). Small
 * pages keep the process's peak memory down (pages outlive a few awaits, so V8 promotes them and
 * collects them late): 2,000 gave 334–351 MB of peak resident memory over 100,000 records, 500
 * gave 232–333 MB, at the same speed.
 */
const PAGE = 500;
/**
 * Without a thread pool: signatures checked between yields to the event loop (~25 ms at
 * node:crypto's ~10k verifies/s), so a long verification never stops this process from answering.
 */
const SLICE = 250;

export type ChainResult = ChainVerification & { mode: 'chain' };

/**
 * Verify the whole chain in sequence order, page by page, against the head recorded when it starts
 * (records appended meanwhile lie beyond it and are not judged). Stops at the first failure: its
 * sequence number is `brokenAt` (spec, "Chain verification result").
 *
 * With a pool, hashes and signatures of a page are checked on every core while the next page is
 * read; this thread only walks the sequence and the links, which are cheap.
 */
export async function verifyExecutionChain(db: CommonQueryMethods, keys: VerificationKeys, pool?: VerifyPool): Promise<ChainResult> {
  const head = await readChainHead(db, 'executions');
  if (!head) return { mode: 'chain', valid: true, checked: 0, headHash: GENESIS_HASH };
  const verifier = new ExecutionChainVerifier(keys.lookup);
  const read = (after: number) => (after < head.seq ? executionsPageAfter(db, after, Math.min(PAGE, head.seq - after)) : Promise.resolve([]));
  let failed: ExecutionRecord | undefined;
  let ahead = read(0);
  scan: for (;;) {
    const page = await ahead;
    if (page.length === 0) break;
    ahead = read((page[page.length - 1] as ExecutionRecord).seq);
    // A read ahead that fails after the walk stopped must not go unobserved.
    ahead.catch(() => undefined);
    await keys.prefetch(page.map((r) => r.keyId));
    const pre = pool ? await pool.check(page, keys.usableKeys(), keys.pinnedKey) : undefined;
    for (let i = 0; i < page.length; i++) {
      if (!pre && i > 0 && i % SLICE === 0) await yieldToEventLoop();
      const r = page[i] as ExecutionRecord;
      if (!verifier.push(r, pre?.[i])) {
        failed = r;
        break scan;
      }
    }
  }
  const result = verifier.finish({ seq: head.seq, hash: head.hash });
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
export async function verifyRecord(
  db: CommonQueryMethods, r: ExecutionRecord, keys: VerificationKeys, linkTo?: string,
): Promise<RecordResult> {
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
      mode: 'record', valid: false, checked: 1, id: r.id, seq: r.seq, hash: r.hash, keyId: r.keyId, inChain: true,
      brokenAt: r.seq - 1, reason: `record ${r.seq - 1} is missing`, contentIntact: true,
    };
  }
  return verifyRecord(db, r, keys, prev);
}
