import { executionExportLine, type ExecutionRecord } from '../../../core/chain/index.ts';
import { leafHashOfText } from '../../../core/tlog/index.ts';

/**
 * A record's entry in the log (docs/TRACE-FORMAT.md, "The transparency log"): its export line
 * without the newline, `<hash> <signature> <signed bytes>`, as UTF-8. The leaf commits to the
 * signature too, and an entry bundle is a run of export lines any script can check.
 */
export function logEntry(r: ExecutionRecord & { canonical?: string }): Buffer {
  return Buffer.from(entryText(r));
}

/** The record's leaf hash, `leafHash(logEntry(r))`, hashed from the text without making its bytes first. */
export function logLeafHash(r: ExecutionRecord & { canonical?: string }): Buffer {
  return leafHashOfText(entryText(r));
}

function entryText(r: ExecutionRecord & { canonical?: string }): string {
  return r.canonical !== undefined ? `${r.hash} ${r.signature} ${r.canonical}` : executionExportLine(r);
}
