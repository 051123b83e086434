/**
 * A held call's approval (docs/MCP.md, "Approvals"): bound to the exact call that was held (caller,
 * server, tool, arguments digest, policy version) until it expires; decided once; an approved one
 * runs that call once. Pure: the store applies these transitions in its own transactions.
 *
 *   pending --approve--> approved --the same call--> used
 *   pending --deny-----> denied
 *   pending | approved --expiresAt passes--> expired
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

export interface Binding {
  readonly callerSub: string;
  readonly server: string;
  readonly tool: string;
  readonly argsDigest: string;
  readonly policyVersion: string;
}

export interface ApprovalState extends Binding {
  readonly id: string;
  readonly status: ApprovalStatus;
  readonly expiresAt: Date;
}

/** The status as of `now`: a pending or approved request past its expiry is expired. */
export function statusAt(a: ApprovalState, now: Date): ApprovalStatus {
  if ((a.status === 'pending' || a.status === 'approved') && now.getTime() >= a.expiresAt.getTime()) return 'expired';
  return a.status;
}

/**
 * What a held call becomes, given the latest request with its binding (same caller, server, tool,
 * arguments digest and policy version; none: a new one): waiting on a pending one (the same call
 * again is the same request), run once on an approved one, refused on a denied one; an expired or
 * used one (or none) makes a new pending request.
 */
export type Resolution = { kind: 'new' } | { kind: 'pending' | 'run' | 'denied'; id: string };

export function resolveHeld(latest: ApprovalState | undefined, now: Date): Resolution {
  if (latest === undefined) return { kind: 'new' };
  switch (statusAt(latest, now)) {
    case 'pending':
      return { kind: 'pending', id: latest.id };
    case 'approved':
      return { kind: 'run', id: latest.id };
    case 'denied':
      return { kind: 'denied', id: latest.id };
    default:
      return { kind: 'new' };
  }
}

export type DecisionProblem = { code: 'CONFLICT' | 'CAPABILITY_INSUFFICIENT'; message: string };

/**
 * Whether `deciderSub` may decide this request now: only a pending one, before its expiry (409
 * otherwise: decided once), and never by the caller whose call it is. The approver's scope is the
 * caller of this function's to check (the route's `approval:decide` or the rule's `approvers`).
 */
export function decisionProblem(a: ApprovalState, deciderSub: string, now: Date): DecisionProblem | undefined {
  const status = statusAt(a, now);
  if (status !== 'pending') return { code: 'CONFLICT', message: `approval ${a.id} is ${status}; a request is decided once, while pending` };
  if (deciderSub === a.callerSub) return { code: 'CAPABILITY_INSUFFICIENT', message: 'a caller can never approve or deny its own call' };
  return undefined;
}
