import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { executionClaim, subjects, type Bus } from '../bus/index.ts';
import type { Principal } from '../edge-http/index.ts';
import { attestationOf } from './principal.ts';
import { RpcError } from './errors.ts';

/** The `_meta` key under which every completed call's result carries its signed trace. */
export const TRACE_META_KEY = 'agent-authority-suite/trace';

export interface TracedCall {
  /** The scope the call exercised (the token's whole scope is attested beside it). */
  readonly scope: string;
  /** `mcp` for the suite's own tools, `mcp:<server>` for an upstream's. */
  readonly module: string;
  readonly action: string;
  readonly input: unknown;
  readonly output: unknown;
  readonly success: boolean;
  /** The gateway policy's rule and, for an approved call, its approval (id, approver, decision time). */
  readonly governance?: Governance;
}

export interface Governance {
  readonly policyRef: string;
  readonly policyVersion: string;
  readonly decision: string;
  readonly evaluatedBy: string;
  readonly evidence?: string[];
}

/**
 * Record a call on the execution chain: input and output hashed (RFC 8785, SHA-256) and dropped by
 * `executionClaim`, signed by the chain writer. The call already happened, so a trace that cannot be
 * made is an error of the call.
 */
export async function traceCall(bus: Bus, call: TracedCall, caller: Principal): Promise<Record<string, unknown>> {
  const made = executionClaim({
    subject: caller.sub ?? 'anonymous',
    scope: [call.scope],
    module: call.module,
    action: call.action,
    input: call.input,
    output: call.output,
    outcome: call.success ? 'success' : 'failure',
    ...(call.governance !== undefined ? { governance: call.governance } : {}),
  });
  if (!made.ok) throw new RpcError(ErrorCode.InternalError, `the call completed but could not be traced: ${made.message}`);
  const r = await bus.request(subjects.executionsRecord, { claim: made.claim, attested: attestationOf(caller), timestamp: new Date().toISOString() });
  if (!r.ok) throw new RpcError(ErrorCode.InternalError, `the call completed but could not be traced: ${r.error.code}`);
  return r.value.record as unknown as Record<string, unknown>;
}
