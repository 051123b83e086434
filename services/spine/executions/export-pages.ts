import type { CommonQueryMethods } from 'slonik';
import type { RequestOf } from '../../../bus/index.ts';
import type { subjects } from '../../../bus/index.ts';
import { executionsExportJson, jsonRows, readChainHead, scannedExecution } from '../../../storage/index.ts';
import { executionExportLine, isPruned, prunedExportLine } from '../../../core/chain/index.ts';

/**
 * A page's lines stay well under a bus message's size (NATS allows 1 MB by default; base64 adds a
 * third): a page ends early, after the record that passes this many bytes, whatever the records hold.
 */
const PAGE_BYTES = 384 * 1024;

/**
 * One page of GET /executions/export (bus/schemas/execution-export.ts): the export lines of the
 * records after `afterSeq`, up to the export's last seq. The first page fixes that last seq: the
 * chain's head as it is now (or `toSeq` when lower), so that records appended while the export
 * streams are not part of it and the file says exactly what it covers.
 */
export async function exportPage(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsExportPage>) {
  const head = (await readChainHead(db, 'executions'))?.seq ?? 0;
  const toSeq = Math.min(d.toSeq ?? head, head);
  if (d.afterSeq >= toSeq) return { lines: '', records: 0, lastSeq: d.afterSeq, toSeq, done: true };
  const text = await executionsExportJson(db, { afterSeq: d.afterSeq, toSeq, limit: d.limit, tenantId: d.tenantId });
  const chunks: Buffer[] = [];
  let bytes = 0;
  let records = 0;
  let lastSeq = d.afterSeq;
  let read = 0;
  let cut = false;
  for (const row of jsonRows(text)) {
    read++;
    if (bytes >= PAGE_BYTES) {
      cut = true;
      break;
    }
    const r = scannedExecution(row);
    // A record pruned under retention: its tombstone's line in its place, not counted as a record.
    const line = Buffer.from(`${isPruned(r) ? prunedExportLine(r) : executionExportLine(r)}\n`);
    chunks.push(line);
    bytes += line.length;
    if (!isPruned(r)) records++;
    lastSeq = r.seq;
  }
  // Fewer rows than asked for: the range holds no more (a tenant's last record may lie before toSeq).
  const done = lastSeq >= toSeq || (!cut && read < d.limit);
  return { lines: Buffer.concat(chunks, bytes).toString('base64'), records, lastSeq, toSeq, done };
}
