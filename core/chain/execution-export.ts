import { executionCanonicalJson, executionSignedObject, type ExecutionRecord } from './execution-record.ts';
import type { PrunedExecution } from './pruned.ts';

/**
 * The export form of a record (docs/TRACE-FORMAT.md, "Exported chains"): one line per record,
 * `<hash> <signature> <canonical JSON of the signed object>`, separated by single spaces. The hash
 * is hex and the signature base64, so neither holds a space, and canonical JSON (RFC 8785) escapes
 * every control character, so it holds no newline: `sh`, `sha256sum` and `openssl` can check each
 * line with no JSON tooling, the third field being exactly the bytes that were hashed.
 */
export function executionExportLine(r: ExecutionRecord): string {
  return `${r.hash} ${r.signature} ${exportedContent(r)}`;
}

/**
 * A record read from storage may have been edited into something RFC 8785 cannot write (a lone
 * surrogate in a jsonb string): it is still exported, as plain JSON, so that verification names it
 * ("content does not match its hash") at its place instead of the export failing there.
 */
function exportedContent(r: ExecutionRecord): string {
  try {
    return executionCanonicalJson(r);
  } catch {
    return JSON.stringify(executionSignedObject(r));
  }
}

/**
 * The line of a record pruned under retention, where its record line stood (docs/TRACE-FORMAT.md,
 * "Retention"): `# ` then JSON of what its tombstone keeps, keys in a fixed order. A `#` line, so
 * that tools reading record lines skip it; the export verifier takes it in the record's place.
 */
export function prunedExportLine(p: PrunedExecution): string {
  return `# ${JSON.stringify({ pruned: 'executions', seq: p.seq, id: p.id, prevHash: p.prevHash, hash: p.hash, keyId: p.keyId, signature: p.signature })}`;
}

/** Version of the export file (header and end lines around the record lines). */
export const EXPORT_FORMAT_VERSION = 1;

/**
 * What an export covers, as its first line states it: records `from` to `to` (inclusive; `to` below
 * `from` when there are none), all of them, or only those of `tenantId` (the others are left out,
 * so the links between a tenant's records cannot all be checked).
 */
export interface ExportRange {
  from: number;
  to: number;
  tenantId: string | null;
}

/**
 * The first line of an export: `# ` then JSON. It carries no key: an auditor takes the public keys
 * from elsewhere (GET /executions/public-key), so that the file never vouches for itself. Keys in a
 * fixed order, so that `sh` can read `from` and `to` by text matching (the documented script).
 */
export function exportHeaderLine(r: ExportRange): string {
  return `# ${JSON.stringify({ export: 'executions', format: EXPORT_FORMAT_VERSION, from: r.from, to: r.to, tenantId: r.tenantId })}`;
}

/**
 * The last line of an export, written only once every record was: a file without it was cut short
 * (the server aborts the connection when it cannot go on).
 */
export function exportEndLine(records: number): string {
  return `# ${JSON.stringify({ end: 'executions', records })}`;
}
