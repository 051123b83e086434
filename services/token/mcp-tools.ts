import { subjects } from '../../bus/index.ts';
import type { Principal } from '../../edge-http/index.ts';
import { callerOfPrincipal, defineTool, type McpTool } from '../../edge-mcp/index.ts';
import { AuditQuery, TokenRequest, ValidateBody } from './routes/token.ts';

/**
 * The token service's routes as MCP tools (docs/MCP.md). Each takes its route's schema and scope and
 * makes the same bus request the route makes, with the caller the capability check established.
 */

const tenantOf = (p: Principal) => (p.tenantId !== undefined ? { tenantId: p.tenantId } : {});

export function tokenTools(): McpTool[] {
  return [
    defineTool({
      name: 'mint_token',
      description: 'Mint a capability token for a subject with scopes your own token already grants (attenuation only).',
      scope: 'auth:token:create',
      route: 'POST /auth/token',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.tokenIssue.reply,
      input: TokenRequest,
      run: (args, caller, bus) => bus.request(subjects.tokenIssue, { ...args, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'validate_token',
      description: 'Check a capability token (signature, expiry, revocation) and optionally whether it grants requiredScope.',
      scope: 'auth:token:validate',
      route: 'POST /auth/token/validate',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.tokenValidate.reply,
      input: ValidateBody,
      run: (args, caller, bus) => bus.request(subjects.tokenValidate, { ...args, caller: callerOfPrincipal(caller) }),
    }),
    defineTool({
      name: 'read_audit',
      description: 'Read the hash-chained audit trail of allow/deny decisions, filtered by subject, result or time window.',
      scope: 'audit:read',
      route: 'GET /audit',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.auditList.reply,
      input: AuditQuery,
      run(args, caller, bus) {
        return bus.request(subjects.auditList, {
          limit: args.limit,
          offset: args.offset,
          ...(args.subject !== undefined ? { subject: args.subject } : {}),
          ...(args.result !== undefined ? { result: args.result } : {}),
          ...(args.from !== undefined ? { from: new Date(args.from).toISOString() } : {}),
          ...(args.to !== undefined ? { to: new Date(args.to).toISOString() } : {}),
          ...tenantOf(caller),
        });
      },
    }),
  ];
}
