/** A held MCP gateway call as `GET /approvals` answers it (services/mcp-gateway/schemas.ts; docs/MCP.md, "Approvals"). */
export interface Approval {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'used';
  callerSub: string;
  callerTenant: string | null;
  server: string;
  tool: string;
  args: unknown;
  argsDigest: string;
  policyVersion: string;
  ruleIndex: number;
  ruleName: string | null;
  approvers: string;
  createdAt: string;
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  /** The decision's signed record on the execution chain. */
  decisionTrace: string | null;
  usedAt: string | null;
  /** The record of the call the approval let run (absent on a suite older than the dashboard). */
  callTrace?: string | null;
}

/** `GET /mcp/policy` (issue 33: the gateway's rules and how often each matched since the file was loaded). */
export interface PolicyRule {
  index: number;
  server: string;
  tool: string;
  effect: string;
  when?: string;
  reason?: string;
  hits: number;
}
export interface PolicyView {
  version: string;
  loadedAt: string;
  rules: PolicyRule[];
}

/** Reading needs this scope (or the admin key); deciding needs `approval:decide` or the rule's approvers. */
export const APPROVAL_READ_SCOPE = 'approval:read';

export const ruleLabel = (a: Pick<Approval, 'ruleIndex' | 'ruleName'>) => `rule ${a.ruleIndex}${a.ruleName !== null ? ` ("${a.ruleName}")` : ''}`;
export const recordHref = (id: string) => `/records/${encodeURIComponent(id)}`;
