import { Type, type Static } from 'typebox';
import { costProblem, hashCanonical } from '../../core/chain/index.ts';
import { normaliseSubject } from '../../core/subject/index.ts';
import { hashedJson } from '../text-rule.ts';
import type { ExecutionClaim } from './executions.ts';
import { GovernanceSchema, Outcome, Text } from './executions.ts';

/**
 * Cost as sent: loose on purpose, so that a broken cost rule is answered by `costProblem` with the
 * rule's name (spec, "Cost object rules") rather than by a schema keyword.
 */
const CostBody = Type.Object(
  {
    amount: Type.Number(),
    currency: Type.String({ maxLength: 16 }),
    source: Type.Optional(Text(256, 0)),
    unit: Type.Optional(Text(64)),
    quantity: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

/**
 * Spec, "Execution record" input. `input` and `output` are hashed here and dropped (core rule 1).
 * Shared by the route, the MCP edge (a tool call's trace) and bench/ceiling-server.ts, which take the same body the same way.
 */
export const ExecutionBody = Type.Object(
  {
    subject: Text(512),
    scope: Type.Optional(Type.Array(Text(200), { maxItems: 100 })),
    module: Text(256),
    action: Text(256),
    // Hashed here and dropped, never stored: the text rule's NUL and length caps do not apply.
    input: hashedJson(),
    output: Type.Optional(hashedJson()),
    outcome: Outcome,
    cost: Type.Optional(Type.Union([CostBody, Type.Null()])),
    governance: Type.Optional(Type.Union([GovernanceSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

/**
 * The claim a validated body makes: the cost rules checked, `input` and `output` hashed (RFC 8785,
 * SHA-256) and dropped; a message naming the rule when the body breaks one.
 */
export function executionClaim(body: Static<typeof ExecutionBody>): { ok: true; claim: ExecutionClaim } | { ok: false; message: string } {
  const { input, output, cost, governance, scope, module, action, outcome } = body;
  // The recorded actor in its one stored spelling, no look-alikes (core/subject; docs/IDENTITIES.md).
  const rule = normaliseSubject(body.subject);
  if (!rule.ok) return { ok: false, message: `subject ${rule.problem}` };
  const subject = rule.subject;
  const problem = cost ? costProblem(cost) : undefined;
  if (problem) return { ok: false, message: problem };
  let inputHash: string;
  let outputHash: string | null;
  try {
    inputHash = hashCanonical(input);
    outputHash = output === undefined ? null : hashCanonical(output);
  } catch {
    // RFC 8785 refuses lone surrogates and non-finite numbers; never echo the payload itself.
    return { ok: false, message: 'input and output must be JSON that RFC 8785 can canonicalise' };
  }
  return {
    ok: true,
    claim: {
      subject,
      scope: scope ?? [],
      module,
      action,
      outcome,
      inputHash,
      outputHash,
      cost: cost ? { ...cost, source: cost.source as string } : null,
      governance: governance ?? null,
    },
  };
}
