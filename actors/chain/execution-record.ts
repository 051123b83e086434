import { hashCanonical } from './canonical.ts';

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
  return hashCanonical(executionSignedObject(f));
}
