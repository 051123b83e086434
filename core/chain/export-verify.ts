import { GENESIS_HASH, sha256Hex } from './canonical.ts';
import { EXECUTION_FORMAT_VERSION, executionCanonicalJson, type ExecutionRecord } from './execution-record.ts';
import { EXPORT_FORMAT_VERSION, type ExportRange } from './execution-export.ts';
import { checkExecution, type KeyLookup } from './execution-verify.ts';
import type { PrunedExecution } from './pruned.ts';

/**
 * Offline verification of an export file (docs/TRACE-FORMAT.md, "Exporting and verifying
 * offline"), fed one line at a time: pure and synchronous, constant memory. Each record line is
 * judged by `checkExecution`, the chain's own verdict, after two checks of the line itself that the
 * documented openssl steps make too: its third field hashes to its first (the bytes as they are in
 * the file), and it is the canonical form of the record it holds. Everything in the file is
 * attacker-controlled; trust comes only from the keys passed in.
 */

export interface ExportVerification {
  valid: boolean;
  /** Records found good (all of them when valid; those before the failure otherwise). */
  records: number;
  /** Seq of the first and the last good record. */
  firstSeq?: number;
  lastSeq?: number;
  /** Hash of the last good record: compare it with the chain's head, or the next export's first link. */
  lastHash?: string;
  /** The export's own statement of what it covers; absent for bare record lines (no header). */
  range?: ExportRange;
  /** Good records per key id. */
  keys: Record<string, number>;
  /**
   * Records pruned under retention, taken where they stood (their tombstone lines): place, links and
   * signature checked, content gone. Not counted in `records`; absent when there were none.
   */
  pruned?: number;
  /** Seq of the first failing record, when the failure is a record's (else see `line`). */
  brokenAt?: number;
  /** Line number (1-based) where the failure was found. */
  line?: number;
  reason?: string;
  /** What the file cannot show, said out loud: links to records that are not in it. */
  notes: string[];
}

type Header = ExportRange;

export class ExportVerifier {
  readonly #keys: KeyLookup;
  #lineNo = 0;
  #header: Header | undefined;
  #ended: { records: number } | undefined;
  #records = 0;
  #pruned = 0;
  #firstSeq: number | undefined;
  /** Seq and hash of the last good record; before any, the seq before the range. */
  #lastSeq = 0;
  #lastHash: string | undefined = GENESIS_HASH;
  /** Tenant exports: records whose link could not be checked (the record before is another tenant's). */
  #unlinked = 0;
  readonly #byKey: Record<string, number> = {};
  readonly #notes: string[] = [];
  #broken: { line: number; seq?: number; reason: string } | undefined;

  constructor(keys: KeyLookup) {
    this.#keys = keys;
  }

  /** The next line, without its newline; false once the export has failed (later lines do not matter). */
  push(line: Uint8Array): boolean {
    if (this.#broken) return false;
    this.#lineNo++;
    if (line[0] === HASH_SIGN) this.#meta(line);
    else if (this.#ended) this.#fail('a line after the end line');
    else this.#record(line);
    return this.#broken === undefined;
  }

  /**
   * A line the reader could not take whole (the bytes after the last newline of a file cut short;
   * a line too long to hold): the export fails there, unless it failed before.
   */
  rejectLine(reason: string): void {
    if (this.#broken) return;
    this.#lineNo++;
    this.#fail(reason);
  }

  finish(): ExportVerification {
    if (!this.#broken && this.#header) this.#checkComplete(this.#header);
    const h = this.#header;
    if (h && h.from > 1 && h.tenantId === null && this.#records > 0) {
      this.#notes.push(
        `the first record's link to record ${h.from - 1} is not checked: that record is not in this export (compare its prevHash with the last hash of the export before)`,
      );
    }
    if (!this.#broken && !h && this.#records > 0) {
      this.#notes.push(
        "no header or end line (bare record lines): only comparing the last hash with the chain's head shows whether records are missing at the end",
      );
    }
    if (this.#unlinked > 0) {
      this.#notes.push(
        `${this.#unlinked} record(s) whose link to the record before is not checked: that record belongs to another tenant and is not in this export`,
      );
    }
    const b = this.#broken;
    return {
      valid: b === undefined,
      records: this.#records,
      ...(this.#firstSeq !== undefined ? { firstSeq: this.#firstSeq, lastSeq: this.#lastSeq } : {}),
      ...(this.#records > 0 && this.#lastHash !== undefined ? { lastHash: this.#lastHash } : {}),
      ...(this.#header ? { range: this.#header } : {}),
      keys: this.#byKey,
      ...(this.#pruned > 0 ? { pruned: this.#pruned } : {}),
      ...(b ? { line: b.line, reason: b.reason, ...(b.seq !== undefined ? { brokenAt: b.seq } : {}) } : {}),
      notes: this.#notes,
    };
  }

  #fail(reason: string, seq?: number): void {
    this.#broken = { line: this.#lineNo, reason, ...(seq !== undefined ? { seq } : {}) };
  }

  #meta(line: Uint8Array): void {
    const text = utf8(line);
    const value = text?.startsWith('# ') ? parseJson(text.slice(2)) : undefined;
    const header = value !== undefined ? headerOf(value) : undefined;
    const end = value !== undefined ? endOf(value) : undefined;
    const pruned = value !== undefined ? prunedOf(value) : undefined;
    if (pruned !== undefined) {
      if (typeof pruned === 'string') {
        this.#fail(pruned);
        return;
      }
      if (this.#ended) {
        this.#fail('a line after the end line');
        return;
      }
      this.#prunedRecord(pruned);
      return;
    }
    if (header !== undefined) {
      if (typeof header === 'string') {
        this.#fail(header);
        return;
      }
      if (this.#lineNo !== 1) {
        this.#fail('a header line that is not the first line');
        return;
      }
      this.#header = header;
      this.#lastSeq = header.from - 1;
      if (header.from > 1) {
        // The record before the range is not in the file: its hash is unknown here.
        this.#lastHash = undefined;
      }
      return;
    }
    if (end !== undefined) {
      if (this.#ended) {
        this.#fail('a second end line');
        return;
      }
      if (!this.#header) {
        this.#fail('an end line without a header line');
        return;
      }
      this.#ended = end;
      return;
    }
    this.#fail('malformed: a line starting with # that is neither the header nor the end line');
  }

  #record(line: Uint8Array): void {
    const first = line.indexOf(SPACE);
    const second = first < 0 ? -1 : line.indexOf(SPACE, first + 1);
    if (second < 0) {
      this.#fail('malformed: not <hash> <signature> <signed bytes>');
      return;
    }
    const signed = line.subarray(second + 1);
    const text = utf8(signed);
    const fields = text === undefined ? undefined : parseJson(text);
    if (!isObject(fields) || !Number.isSafeInteger(fields.seq)) {
      this.#fail('malformed: the signed bytes are not the JSON of an execution record');
      return;
    }
    const seq = fields.seq as number;
    const hash = utf8(line.subarray(0, first)) ?? '';
    // What sha256sum checks: the bytes exactly as they are in the file.
    if (sha256Hex(signed) !== hash) {
      this.#fail('content does not match its hash', seq);
      return;
    }
    const { v, chain, ...rest } = fields;
    if (v !== EXECUTION_FORMAT_VERSION || chain !== 'executions') {
      this.#fail('not a record of format version 1 of the execution chain', seq);
      return;
    }
    const r = { ...rest, hash, signature: utf8(line.subarray(first + 1, second)) ?? '' } as unknown as ExecutionRecord;
    if (canonical(r) !== text) {
      this.#fail('the signed bytes are not the canonical (RFC 8785) form of the record they hold', seq);
      return;
    }
    const h = this.#header;
    if (h?.tenantId != null && (r.attested as { tenantId?: unknown } | null)?.tenantId !== h.tenantId) {
      this.#fail(`a record of another tenant in tenant ${h.tenantId}'s export`, seq);
      return;
    }
    if (h && seq > h.to) {
      this.#fail(`a record beyond the export's range (it ends at ${h.to})`, seq);
      return;
    }
    const expected = this.#expected(r, h);
    const verdict = checkExecution(r, expected, this.#keys);
    if (!verdict.ok) {
      this.#fail(verdict.reason, expected.seq);
      return;
    }
    this.#records++;
    this.#firstSeq ??= seq;
    this.#lastSeq = seq;
    this.#lastHash = r.hash;
    this.#byKey[r.keyId] = (this.#byKey[r.keyId] ?? 0) + 1;
  }

  /**
   * A record pruned under retention, where it stood: judged as a record is (place, link, key,
   * signature over its hash), but for its content, which is gone. A tenant's export holds only the
   * tenant's own; the line does not say whose it was, so that is not checked here.
   */
  #prunedRecord(p: PrunedExecution): void {
    const h = this.#header;
    if (h && p.seq > h.to) {
      this.#fail(`a record beyond the export's range (it ends at ${h.to})`, p.seq);
      return;
    }
    const expected = this.#expected(p, h);
    const verdict = checkExecution(p, expected, this.#keys);
    if (!verdict.ok) {
      this.#fail(verdict.reason, expected.seq);
      return;
    }
    this.#pruned++;
    this.#lastSeq = p.seq;
    this.#lastHash = p.hash;
  }

  /**
   * Where the record must stand and what it must link to. A whole range holds every record from
   * `from` on; a tenant's skips the others', so a record may come later than the next seq, and its
   * link is then not checkable. A link to a record not in the file is taken as the record says.
   */
  #expected(r: { seq: number; prevHash: string }, h: Header | undefined): { seq: number; prevHash: string } {
    const next = this.#lastSeq + 1;
    const tenant = h?.tenantId != null;
    const seq = tenant && r.seq > next ? r.seq : next;
    const linked = seq === next && this.#lastHash !== undefined;
    if (tenant && !linked) this.#unlinked++;
    return { seq, prevHash: linked ? (this.#lastHash as string) : r.prevHash };
  }

  #checkComplete(h: Header): void {
    const whole = h.tenantId === null;
    if (!this.#ended) {
      this.#lineNo++;
      const next = this.#lastSeq + 1;
      this.#fail(`no end line: the export is incomplete (cut short after ${this.#records} record(s))`, whole && next <= h.to ? next : undefined);
      return;
    }
    // A whole range must reach `to`; a tenant's cannot be held to it (its last record may be earlier).
    if (whole && h.to >= h.from && this.#lastSeq !== h.to) {
      this.#fail(`records ${this.#lastSeq + 1} to ${h.to} are missing`, this.#lastSeq + 1);
      return;
    }
    if (this.#ended.records !== this.#records) {
      this.#fail(`the end line counts ${this.#ended.records} record(s), the export holds ${this.#records}`);
    }
  }
}

const SPACE = 0x20;
const HASH_SIGN = 0x23;
const decoder = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The header's range, a reason it is not acceptable, or undefined when the value is no header. */
function headerOf(v: unknown): Header | string | undefined {
  if (!isObject(v) || v.export === undefined) return undefined;
  if (v.export !== 'executions') return 'a header for another export than the execution chain';
  if (v.format !== EXPORT_FORMAT_VERSION) return `export format ${String(v.format)} is not known to this verifier`;
  const { from, to, tenantId } = v;
  if (!isCount(from) || from < 1 || !isCount(to) || !(tenantId === null || typeof tenantId === 'string')) {
    return 'malformed header line: from, to or tenantId';
  }
  return { from, to, tenantId };
}

const isHex64 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** The tombstone a pruned record's line holds, a reason it is malformed, or undefined when it is none. */
function prunedOf(v: unknown): PrunedExecution | string | undefined {
  if (!isObject(v) || v.pruned === undefined) return undefined;
  const { pruned, seq, id, prevHash, hash, keyId, signature } = v;
  if (
    pruned !== 'executions' ||
    !isCount(seq) ||
    seq < 1 ||
    typeof id !== 'string' ||
    !isHex64(prevHash) ||
    !isHex64(hash) ||
    typeof keyId !== 'string' ||
    typeof signature !== 'string'
  ) {
    return 'malformed line of a pruned record: pruned, seq, id, prevHash, hash, keyId or signature';
  }
  return { pruned: true, seq, id, prevHash, hash, keyId, signature };
}

function endOf(v: unknown): { records: number } | undefined {
  if (!isObject(v) || v.end !== 'executions' || !isCount(v.records)) return undefined;
  return { records: v.records };
}

function canonical(r: ExecutionRecord): string | undefined {
  try {
    return executionCanonicalJson(r);
  } catch {
    return undefined;
  }
}
