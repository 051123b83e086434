import type { ExecutionRecord } from '../core/chain/index.ts';
import type { ScannedRow } from '../storage/index.ts';

/**
 * Test-only: records as the chain scans hand them to verification threads
 * (storage/execution-scan.ts): a row of column values, and a text of JSON rows, one per line.
 */
export function scannedRow(r: ExecutionRecord): ScannedRow {
  return [
    r.seq,
    r.id,
    r.timestamp,
    r.subject,
    r.scope,
    r.module,
    r.action,
    r.outcome,
    r.inputHash,
    r.outputHash,
    r.cost,
    r.governance,
    r.attested,
    r.prevHash,
    r.keyId,
    r.hash,
    r.signature,
  ];
}

export function pageText(records: readonly ExecutionRecord[]): string {
  return records.map((r) => JSON.stringify(scannedRow(r))).join('\n');
}
