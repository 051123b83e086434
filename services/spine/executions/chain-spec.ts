import { randomBytes } from 'node:crypto';
import type { AuditInput, ExecutionClaim } from '../../../bus/index.ts';
import {
  executionCanonicalJson,
  sha256Hex,
  type Attestation,
  type Cost,
  type ExecutionFields,
  type Governance,
  type TraceSigner,
} from '../../../core/chain/index.ts';
import { insertExecutions, type NewExecution } from '../../../storage/index.ts';
import type { ChainSpec } from '../../../actors/chain-writer/index.ts';

/** What the writer appends: the caller's claim, what the edge attests, and the unsigned retry key. */
export interface ExecutionAppend {
  id: string;
  claim: ExecutionClaim;
  attested: Attestation;
  timestamp: string;
  idempotencyKey: string | null;
  /** The edge's audit entry of the decision, committed with the record (never signed, never returned). */
  audit?: AuditInput;
}

/** `exec_` and 128 random bits in hex (spec: `exec_<hex>`); unguessable, so ids reveal no order. */
export function newExecutionId(): string {
  // Random bytes drawn 4 KiB at a time (256 ids): one call into the generator per id was ~4% of the
  // thread that serves HTTP under append load. Each id still takes 16 bytes no other id uses.
  if (randomAt + 16 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomAt = 0;
  }
  const id = `exec_${randomPool.toString('hex', randomAt, randomAt + 16)}`;
  randomAt += 16;
  return id;
}
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/**
 * The execution chain (format v1, docs/TRACE-FORMAT.md): each record hashed over its canonical JSON
 * (RFC 8785) with `prevHash` among the signed fields, and signed with Ed25519 (RFC 8032) over that
 * hash. `seal` and `complete` are deterministic for a given input, position and key.
 */
export function executionChainSpec(signer: TraceSigner): ChainSpec<ExecutionAppend, NewExecution> {
  return {
    chain: 'executions',
    seal(input, seq, prevHash) {
      const c = input.claim;
      const fields: ExecutionFields = {
        seq,
        id: input.id,
        timestamp: input.timestamp,
        subject: c.subject,
        scope: [...c.scope],
        module: c.module,
        action: c.action,
        outcome: c.outcome,
        inputHash: c.inputHash,
        outputHash: c.outputHash,
        cost: c.cost && normaliseCost(c.cost),
        governance: c.governance && normaliseGovernance(c.governance),
        attested: {
          jti: input.attested.jti,
          sub: input.attested.sub,
          scope: [...input.attested.scope],
          proven: input.attested.proven,
          tenantId: input.attested.tenantId,
        },
        prevHash,
        keyId: signer.keyId,
      };
      // Kept with the record so that the insert sends the bytes that were hashed (storage/executions.ts).
      const canonical = executionCanonicalJson(fields);
      const hash = sha256Hex(canonical);
      // Signed by `complete`, the whole batch at once (on the signing thread when there is one).
      return { ...fields, hash, signature: '', idempotencyKey: input.idempotencyKey, canonical, ...(input.audit ? { audit: input.audit } : {}) };
    },
    async complete(records) {
      const signatures = await signer.signMany(records.map((r) => r.hash));
      for (let i = 0; i < records.length; i++) (records[i] as NewExecution).signature = signatures[i] as string;
    },
    insert: insertExecutions,
  };
}

// Only the fields the format knows, and none present as `undefined`: what is signed is exactly what
// is stored (jsonb) and returned.
function normaliseCost(c: Cost): Cost {
  return {
    amount: c.amount,
    currency: c.currency,
    source: c.source,
    ...(c.unit !== undefined ? { unit: c.unit } : {}),
    ...(c.quantity !== undefined ? { quantity: c.quantity } : {}),
  };
}

function normaliseGovernance(g: Governance): Governance {
  const out: Governance = {};
  if (g.policyRef !== undefined) out.policyRef = g.policyRef;
  if (g.policyVersion !== undefined) out.policyVersion = g.policyVersion;
  if (g.decision !== undefined) out.decision = g.decision;
  if (g.evidence !== undefined) out.evidence = [...g.evidence];
  if (g.evaluatedBy !== undefined) out.evaluatedBy = g.evaluatedBy;
  return out;
}
