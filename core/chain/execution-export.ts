import { executionCanonicalJson, type ExecutionRecord } from './execution-record.ts';

/**
 * The export form of a record (docs/TRACE-FORMAT.md, "Exported chains"): one line per record,
 * `<hash> <signature> <canonical JSON of the signed object>`, separated by single spaces. The hash
 * is hex and the signature base64, so neither holds a space, and canonical JSON (RFC 8785) escapes
 * every control character, so it holds no newline: `sh`, `sha256sum` and `openssl` can check each
 * line with no JSON tooling, the third field being exactly the bytes that were hashed.
 */
export function executionExportLine(r: ExecutionRecord): string {
  return `${r.hash} ${r.signature} ${executionCanonicalJson(r)}`;
}
