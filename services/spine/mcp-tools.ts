import { Type } from 'typebox';
import { subjects, ExecutionBody, executionClaim } from '../../bus/index.ts';
import type { Principal } from '../../edge-http/index.ts';
import { attestationOf, defineTool, type McpTool, type ToolOutcome } from '../../edge-mcp/index.ts';
import { VerifyBody } from './routes/executions.ts';
import { AttentionQuery, KINDS as ATTENTION_KINDS } from './routes/execution-reads.ts';

/**
 * The execution chain's routes as MCP tools (docs/MCP.md). Each takes its route's schema and scope
 * and makes the same bus request the route makes, with the caller the capability check established.
 */

const EXECUTION_ID = '^exec_[0-9a-f]{32}$';
const RecordId = Type.Object({ id: Type.String({ pattern: EXECUTION_ID, maxLength: 37 }) }, { additionalProperties: false });
/** Whole-chain reads and verification take time (as on the routes). */
const CHAIN_TIMEOUT_MS = 600_000;
const AGGREGATE_TIMEOUT_MS = 120_000;

const tenantOf = (p: Principal) => (p.tenantId !== undefined ? { tenantId: p.tenantId } : {});

/** The record alone; one of another tenant is "not found", as on GET /executions/{id}. */
function ownRecord(result: ToolOutcome, p: Principal): ToolOutcome {
  if (!result.ok) return result;
  const record = (result.value as { record: { attested?: { tenantId?: unknown } | null } }).record;
  if (p.tenantId !== undefined && record.attested?.tenantId !== p.tenantId)
    return { ok: false, error: { code: 'NOT_FOUND', message: 'no execution with this id' } };
  return { ok: true, value: record };
}

export function executionTools(): McpTool[] {
  return [
    defineTool({
      name: 'record_execution',
      description: 'Record an agent action on the signed execution chain (input and output are hashed, never stored); returns the signed record.',
      scope: 'execution:record',
      route: 'POST /executions',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsRecord.reply.properties.record,
      input: ExecutionBody,
      async run(args, caller, bus) {
        const made = executionClaim(args);
        if (!made.ok) return { ok: false, error: { code: 'INVALID_REQUEST', message: made.message } };
        const r = await bus.request(subjects.executionsRecord, { claim: made.claim, attested: attestationOf(caller), timestamp: new Date().toISOString() });
        return r.ok ? { ok: true, value: r.value.record } : r;
      },
    }),
    defineTool({
      name: 'get_execution',
      description: 'Read one signed execution record by its id (exec_...).',
      scope: 'execution:read',
      route: 'GET /executions/:id',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsGet.reply.properties.record,
      input: RecordId,
      run: async (args, caller, bus) => ownRecord(await bus.request(subjects.executionsGet, { id: args.id }), caller),
    }),
    defineTool({
      name: 'explain_execution',
      description: 'Explain an execution record in plain sentences derived from its signed fields.',
      scope: 'execution:read',
      route: 'GET /executions/:id/explain',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsExplain.reply,
      input: RecordId,
      run: (args, caller, bus) => bus.request(subjects.executionsExplain, { id: args.id, ...tenantOf(caller) }),
    }),
    defineTool({
      name: 'execution_conditions',
      description: 'The five conditions of an execution record (outcome, identity, capability, governance, integrity), each reported on its own.',
      scope: 'execution:read',
      route: 'GET /executions/:id/conditions',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsConditions.reply,
      input: RecordId,
      run: (args, caller, bus) => bus.request(subjects.executionsConditions, { id: args.id, ...tenantOf(caller) }),
    }),
    defineTool({
      name: 'verify_execution',
      description: 'Verify a record (given whole, or by id) or, with neither, the whole execution chain; optionally against a PEM public key.',
      // The body of the public POST /executions/verify, the scope of GET /executions-verify-chain: a
      // tool call is traced in its caller's name, so it needs a caller (docs/MCP.md).
      scope: 'execution:read',
      route: 'GET /executions-verify-chain',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsVerify.reply,
      input: VerifyBody,
      async run(args, _caller, bus) {
        if (args.record !== undefined && args.id !== undefined)
          return { ok: false, error: { code: 'INVALID_REQUEST', message: 'give either record or id, not both' } };
        return bus.request(subjects.executionsVerify, args, { timeoutMs: CHAIN_TIMEOUT_MS });
      },
    }),
    defineTool({
      name: 'attention_list',
      description: 'Execution records that need attention (failed outcome, unproven identity, capability or governance issues), newest first.',
      scope: 'execution:read',
      route: 'GET /executions/attention',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.executionsAttention.reply,
      input: AttentionQuery,
      run(args, caller, bus) {
        const kinds = args.reason !== undefined ? [...new Set(args.reason.split(','))] : [...ATTENTION_KINDS];
        return bus.request(
          subjects.executionsAttention,
          {
            limit: args.limit,
            kinds: kinds as (typeof ATTENTION_KINDS)[number][],
            ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
            ...tenantOf(caller),
          },
          { timeoutMs: AGGREGATE_TIMEOUT_MS },
        );
      },
    }),
  ];
}
