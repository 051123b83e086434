import { Type, type Static, type TSchema } from 'typebox';
import { CallerSchema } from '../../bus/index.ts';

/** A held MCP gateway call as `GET /approvals` shows it: exactly what would run (docs/MCP.md, "Approvals"). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Iso = Type.String({ description: 'RFC 3339, UTC' });
export const ApprovalStatus = Type.Union(['pending', 'approved', 'denied', 'expired', 'used'].map((s) => Type.Literal(s)));
export const ApprovalSchema = Type.Object({
  id: Type.String(),
  status: ApprovalStatus,
  callerSub: Type.String(),
  callerTenant: Nullable(Type.String()),
  server: Type.String(),
  tool: Type.String({ description: "The upstream's own name for the tool" }),
  args: Type.Unknown({ description: 'The arguments as sent' }),
  argsDigest: Type.String({ description: 'SHA-256 (hex) of their RFC 8785 canonical JSON' }),
  policyVersion: Type.String({ description: 'SHA-256 (hex) of the policy file the request was held under' }),
  ruleIndex: Type.Integer(),
  ruleName: Nullable(Type.String()),
  approvers: Type.String({ description: 'The scope that may decide it, beside approval:decide' }),
  createdAt: Iso,
  expiresAt: Iso,
  decidedBy: Nullable(Type.String()),
  decidedAt: Nullable(Iso),
  decisionReason: Nullable(Type.String()),
  decisionTrace: Nullable(Type.String({ description: "The decision's record on the execution chain" })),
  usedAt: Nullable(Iso),
  callTrace: Nullable(Type.String({ description: 'The record of the call this approval let run, once it ran' })),
});
export type Approval = Static<typeof ApprovalSchema>;

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
export const HoldRequest = Type.Object({
  callerSub: Text(256),
  callerTenant: Nullable(Text(256)),
  server: Text(64),
  tool: Text(64),
  args: Type.Unknown(),
  argsDigest: Text(64),
  policyVersion: Text(64),
  ruleIndex: Type.Integer({ minimum: 0 }),
  ruleName: Nullable(Text(64)),
  approvers: Text(256),
  ttlSeconds: Type.Integer({ minimum: 1 }),
});
export const HoldAnswer = Type.Object({
  outcome: Type.Union([Type.Literal('pending'), Type.Literal('run'), Type.Literal('denied')]),
  approval: ApprovalSchema,
});

export const ApprovalFilter = Type.Object(
  {
    status: Type.Optional(ApprovalStatus),
    server: Type.Optional(Text(64)),
    tool: Type.Optional(Text(64)),
    caller: Type.Optional(Text(256)),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  },
  { additionalProperties: false },
);
export const ApprovalList = Type.Object({ approvals: Type.Array(ApprovalSchema) });
export const DecideBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) }, { additionalProperties: false });
export const DecideRequest = Type.Object({
  id: Text(100),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
  reason: Nullable(Type.String({ maxLength: 1000 })),
  caller: CallerSchema,
});

export const RanRequest = Type.Object({ id: Text(100), traceId: Text(200) });

export const BudgetCharge = Type.Object({ key: Text(64), by: Text(300), windowStart: Iso, calls: Type.Integer({ minimum: 1 }), rule: Type.String() });
export const BudgetRequest = Type.Object({ charges: Type.Array(BudgetCharge, { maxItems: 1000 }) });
export const BudgetAnswer = Type.Object({ ok: Type.Boolean(), refusedBy: Nullable(Type.String()) });
