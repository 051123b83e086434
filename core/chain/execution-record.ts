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
 * The RFC 8785 form of `executionSignedObject(f)`, for the record's fixed shape: the object is built
 * with its keys in the scheme's order (UTF-16 code units) and written by one JSON.stringify, which
 * writes keys in insertion order, and well-formed strings and finite numbers exactly as RFC 8785
 * prescribes. Every append and every record of a chain verification is hashed here; the generic
 * canonicaliser (sorting keys, walking values) took 8.1 µs a record, this ~1.5. Only values of
 * the shapes the writer produces take this path, checked here; anything else (a field edited in the
 * database into something the format never writes) goes through the generic canonicaliser, so the
 * bytes are those of `canonicalJson(executionSignedObject(f))` for every input: property-tested.
 */
export function executionCanonicalJson(f: ExecutionFields): string {
  const attested = known(f.attested, ATTESTED_KEYS);
  const cost = known(f.cost, COST_KEYS);
  const governance = known(f.governance, GOVERNANCE_KEYS);
  if (
    attested === undefined ||
    cost === undefined ||
    governance === undefined ||
    !Number.isSafeInteger(f.seq) ||
    !text(f.action) ||
    !text(f.id) ||
    !text(f.inputHash) ||
    !text(f.keyId) ||
    !text(f.module) ||
    !text(f.outcome) ||
    !(f.outputHash === null || text(f.outputHash)) ||
    !text(f.prevHash) ||
    !texts(f.scope) ||
    !text(f.subject) ||
    !text(f.timestamp)
  ) {
    return canonicalJson(executionSignedObject(f));
  }
  return JSON.stringify({
    action: f.action,
    attested,
    chain: 'executions',
    cost,
    governance,
    id: f.id,
    inputHash: f.inputHash,
    keyId: f.keyId,
    module: f.module,
    outcome: f.outcome,
    outputHash: f.outputHash,
    prevHash: f.prevHash,
    scope: f.scope,
    seq: f.seq,
    subject: f.subject,
    timestamp: f.timestamp,
    v: EXECUTION_FORMAT_VERSION,
  });
}

// Keys of the nested objects, in RFC 8785 order.
const ATTESTED_KEYS = ['jti', 'proven', 'scope', 'sub', 'tenantId'] as const;
const COST_KEYS = ['amount', 'currency', 'quantity', 'source', 'unit'] as const;
const GOVERNANCE_KEYS = ['decision', 'evaluatedBy', 'evidence', 'policyRef', 'policyVersion'] as const;

/** A string JSON.stringify writes as RFC 8785 does (a lone surrogate it would escape; RFC 8785 refuses it). */
const text = (s: unknown): s is string => typeof s === 'string' && s.isWellFormed();

/** A plain array of such strings, without holes (JSON.stringify and RFC 8785 then write it alike). */
function texts(a: unknown): boolean {
  if (!Array.isArray(a) || Object.getPrototypeOf(a) !== Array.prototype) return false;
  for (let i = 0; i < a.length; i++) if (!text(a[i])) return false;
  return true;
}

/**
 * Null, or a copy of a plain object with its keys in `keys` order, when its own keys are all among
 * `keys` and its values are strings, finite numbers, booleans, null or arrays of strings;
 * undefined for anything else.
 */
function known(o: unknown, keys: readonly string[]): Record<string, unknown> | null | undefined {
  if (o === null) return null;
  // Arrays and other objects have another prototype.
  if (typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) return undefined;
  const v = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let present = 0;
  for (const k of keys) {
    const x = v[k];
    if (x === undefined) continue;
    if (!(x === null || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)) || text(x) || texts(x))) return undefined;
    out[k] = x;
    present++;
  }
  // Any other own enumerable key, or one of these holding undefined or not enumerable: the generic
  // form (what Object.keys would list is what both forms write).
  let own = 0;
  for (const k in v) if (Object.hasOwn(v, k)) own++;
  return present === own ? out : undefined;
}
