import { canonicalJson, sha256Hex } from './canonical.ts';

/**
 * Execution record, format version 1 (docs/TRACE-FORMAT.md). `hash` is the SHA-256 of the RFC 8785
 * canonical JSON of exactly the signed object below; `signature` is Ed25519 over the 32 raw bytes of
 * that hash. Inputs and outputs appear only as their hashes. A change of format is a new version,
 * never an edit of this one: records of version 1 must verify forever (frozen fixture chain).
 */
export const EXECUTION_FORMAT_VERSION = 1;

export interface Cost {
  amount: number;
  currency: string;
  source: string;
  unit?: string;
  quantity?: number;
}

export interface Governance {
  policyRef?: string;
  policyVersion?: string;
  decision?: string;
  evidence?: string[];
  evaluatedBy?: string;
}

/** What the edge knows for certain about the call that recorded the execution (not claims). */
export interface Attestation {
  /** The recording token's jti, subject and scopes. */
  jti: string | null;
  sub: string;
  scope: string[];
  /** The token was issued against proof of an enrolled identity's private key. */
  proven: boolean;
  tenantId: string | null;
}

export interface ExecutionFields {
  seq: number;
  id: string;
  /** When the suite accepted the record (ISO-8601 UTC). */
  timestamp: string;
  /** Claimed actor. */
  subject: string;
  /** Claimed scopes the action was taken under. */
  scope: string[];
  module: string;
  action: string;
  outcome: string;
  inputHash: string;
  outputHash: string | null;
  cost: Cost | null;
  governance: Governance | null;
  attested: Attestation;
  prevHash: string;
  keyId: string;
}

export interface ExecutionRecord extends ExecutionFields {
  hash: string;
  signature: string;
}

/** The exact object whose canonical JSON is hashed. */
export function executionSignedObject(f: ExecutionFields): Record<string, unknown> {
  return {
    v: EXECUTION_FORMAT_VERSION,
    chain: 'executions',
    seq: f.seq,
    id: f.id,
    timestamp: f.timestamp,
    subject: f.subject,
    scope: f.scope,
    module: f.module,
    action: f.action,
    outcome: f.outcome,
    inputHash: f.inputHash,
    outputHash: f.outputHash,
    cost: f.cost,
    governance: f.governance,
    attested: f.attested,
    prevHash: f.prevHash,
    keyId: f.keyId,
  };
}

export function executionHash(f: ExecutionFields): string {
  return sha256Hex(executionCanonicalJson(f));
}

/**
 * The RFC 8785 form of `executionSignedObject(f)`, written out for the record's fixed shape: keys in
 * the scheme's order (UTF-16 code units), strings and numbers as JSON.stringify writes them (which
 * is what RFC 8785 prescribes for strings and for finite numbers). Every append and every record of
 * a chain verification is hashed here; the generic canonicaliser (sorting keys, walking values) was
 * 5% of the main thread under append load. Any value of another shape (a field edited in the
 * database to something the format never writes) goes through the generic canonicaliser, so the
 * bytes are those of `canonicalJson(executionSignedObject(f))` for every input: property-tested.
 */
export function executionCanonicalJson(f: ExecutionFields): string {
  const a = text(f.action), at = known(f.attested, ATTESTED_KEYS), c = known(f.cost, COST_KEYS), g = known(f.governance, GOVERNANCE_KEYS);
  const id = text(f.id), ih = text(f.inputHash), k = text(f.keyId), m = text(f.module), o = text(f.outcome);
  const oh = text(f.outputHash), p = text(f.prevHash), sc = strings(f.scope), su = text(f.subject), t = text(f.timestamp);
  if (a === undefined || at === undefined || c === undefined || g === undefined || id === undefined || ih === undefined ||
    k === undefined || m === undefined || o === undefined || oh === undefined || p === undefined || sc === undefined ||
    su === undefined || t === undefined || !Number.isSafeInteger(f.seq)) {
    return canonicalJson(executionSignedObject(f));
  }
  return `{"action":${a},"attested":${at},"chain":"executions","cost":${c},"governance":${g},"id":${id},` +
    `"inputHash":${ih},"keyId":${k},"module":${m},"outcome":${o},"outputHash":${oh},"prevHash":${p},"scope":${sc},` +
    `"seq":${f.seq},"subject":${su},"timestamp":${t},"v":${EXECUTION_FORMAT_VERSION}}`;
}

// Keys of the nested objects, in RFC 8785 order.
const ATTESTED_KEYS = ['jti', 'proven', 'scope', 'sub', 'tenantId'] as const;
const COST_KEYS = ['amount', 'currency', 'quantity', 'source', 'unit'] as const;
const GOVERNANCE_KEYS = ['decision', 'evaluatedBy', 'evidence', 'policyRef', 'policyVersion'] as const;

// Each writer below answers undefined for a value of another shape: the whole object is then
// written by the generic canonicaliser.

/** A string (refused with a lone surrogate, as the generic canonicaliser does) or null. */
function text(s: unknown): string | undefined {
  if (s === null) return 'null';
  if (typeof s !== 'string') return undefined;
  if (!s.isWellFormed()) throw new TypeError('Lone surrogate is not allowed');
  return JSON.stringify(s);
}

function strings(a: unknown): string | undefined {
  if (!Array.isArray(a)) return undefined;
  let out = '[';
  for (let i = 0; i < a.length; i++) {
    const s: unknown = a[i];
    if (typeof s !== 'string') return undefined;
    out += (i === 0 ? '' : ',') + (text(s) as string);
  }
  return `${out}]`;
}

/**
 * Null, or a plain object whose keys are all among `keys` (sorted) and whose values are strings,
 * finite numbers, booleans, null or arrays of strings, written in key order.
 */
function known(o: unknown, keys: readonly string[]): string | undefined {
  if (o === null) return 'null';
  if (typeof o !== 'object' || Array.isArray(o) || Object.getPrototypeOf(o) !== Object.prototype) return undefined;
  const v = o as Record<string, unknown>;
  let present = 0;
  let out = '{';
  for (const k of keys) {
    if (!Object.prototype.propertyIsEnumerable.call(v, k)) continue;
    const x = v[k];
    let written: string | undefined;
    if (typeof x === 'string' || x === null) written = text(x);
    else if (typeof x === 'boolean') written = x ? 'true' : 'false';
    else if (typeof x === 'number' && Number.isFinite(x)) written = JSON.stringify(x);
    else written = strings(x);
    if (written === undefined) return undefined;
    out += `${present === 0 ? '' : ','}"${k}":${written}`;
    present++;
  }
  // An own key outside the format: the generic form.
  return present === Object.keys(v).length ? `${out}}` : undefined;
}
