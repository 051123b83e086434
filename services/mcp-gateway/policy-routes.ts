import { Type } from 'typebox';
import type { PolicySource } from './policy-source.ts';
import { answer, errorsOf, operation, sendError, type EdgeRoutes } from '../../edge-http/index.ts';

const Iso = Type.String({ description: 'RFC 3339, UTC' });
const Version = Type.String({ description: "SHA-256 (hex) of the policy file's bytes: the version on every decision" });
const RuleView = Type.Object({
  index: Type.Integer({ description: "The rule's place in the file, from 0" }),
  server: Type.String(),
  tool: Type.String({ description: 'The tool name or glob, as written' }),
  effect: Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('approve'), Type.Literal('budget')]),
  when: Type.Optional(Type.String({ description: 'The CEL condition, as written' })),
  reason: Type.Optional(Type.String({ description: "A deny rule's reason, as the agent is shown it" })),
  hits: Type.Integer({ description: 'Calls this rule decided (or, a budget rule, counted) in this process since this version was loaded' }),
});
export const PolicyReply = Type.Object({ version: Version, loadedAt: Iso, rules: Type.Array(RuleView) });
const ReloadReply = Type.Object({ version: Version, previous: Version, loadedAt: Iso });

const NO_POLICY = { code: 'NOT_FOUND', message: 'this gateway has no policy file (SUITE_MCP_POLICY is not set)' } as const;

/**
 * The gateway's policy file, read and reloaded (docs/MCP.md, "Reading and reloading the policy").
 * Both answer for this process: each replica reloads on its own SIGHUP or request.
 */
export function policyRoutes(source: PolicySource | undefined): EdgeRoutes {
  return (app) => {
    app.get(
      '/mcp/policy',
      {
        config: { authority: { kind: 'scope', scope: 'approval:read', admin: true } },
        schema: {
          ...operation('mcp', 'getMcpPolicy', "The MCP gateway's policy in force: its version, when it was loaded, and each rule with its hit count"),
          response: { 200: answer(PolicyReply, 'The rules in file order; hit counts since this version was loaded in this process'), ...errorsOf(404) },
        },
      },
      async (_request, reply) => (source === undefined ? sendError(reply, NO_POLICY) : reply.send(source.view())),
    );
    app.post(
      '/mcp/policy/reload',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          body: Type.Optional(
            Type.Object({}, { additionalProperties: false, description: 'Nothing: the file is read again from the path SUITE_MCP_POLICY names' }),
          ),
          ...operation(
            'mcp',
            'reloadMcpPolicy',
            'Read the policy file again: a good file replaces the policy in force, a bad one is refused and the old stays',
          ),
          response: { 200: answer(ReloadReply, 'The version now in force and the one before it (equal when the file did not change)'), ...errorsOf(404, 409) },
        },
      },
      async (request, reply) => {
        if (source === undefined) return sendError(reply, NO_POLICY);
        const r = source.reload();
        if (!r.ok) {
          request.log.warn({ problem: r.message }, 'policy file refused on reload; the old policy stays');
          return sendError(reply, { code: 'CONFLICT', message: `the policy file is refused: ${r.message}; the policy in force (version ${r.version}) stays` });
        }
        return { version: r.version, previous: r.previous, loadedAt: r.loadedAt };
      },
    );
  };
}
