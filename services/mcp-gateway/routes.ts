import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { callerOf, errorsOf, operation, sendResult, type EdgeApp, type EdgeRoutes } from '../../edge-http/index.ts';
import { ApprovalFilter, ApprovalList, ApprovalSchema, DecideBody } from './schemas.ts';
import { approvalSubjects as s } from './subjects.ts';

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^apr_[0-9a-f]{32}$' }) });

/**
 * The approvals of held gateway calls (docs/MCP.md, "Approvals"), on the token listener. Reading
 * needs `approval:read` (or the admin key); deciding needs any token (or the admin key), and the desk checks `approval:decide` or the
 * rule's `approvers` (a scope per request, which a route's single declared scope cannot say).
 */
export function approvalRoutes(bus: Bus): EdgeRoutes {
  return (app: EdgeApp) => {
    app.get(
      '/approvals',
      {
        config: { authority: { kind: 'scope', scope: 'approval:read', admin: true } },
        schema: {
          querystring: ApprovalFilter,
          ...operation('mcp', 'listApprovals', 'Held MCP gateway calls: exactly what would run, newest first'),
          response: { 200: ApprovalList },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(s.list, { ...request.query, by: callerOf(request) })),
    );
    for (const decision of ['approve', 'deny'] as const) {
      app.post(
        `/approvals/:id/${decision}`,
        {
          config: { authority: { kind: 'token', admin: true } },
          schema: {
            params: Params,
            body: Type.Optional(DecideBody),
            ...operation(
              'mcp',
              decision === 'approve' ? 'approveApproval' : 'denyApproval',
              decision === 'approve' ? 'Approve a held call: the same call, made again by its caller, then runs once' : 'Deny a held call: it stays denied',
            ),
            response: { 200: ApprovalSchema, ...errorsOf(403, 404, 409) },
          },
        },
        async (request, reply) =>
          sendResult(
            reply,
            await bus.request(s.decide, {
              id: request.params.id,
              decision,
              reason: request.body?.reason ?? null,
              caller: callerOf(request),
            }),
          ),
      );
    }
  };
}
