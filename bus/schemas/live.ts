import { Type } from 'typebox';

/**
 * Events services publish for live views (the dashboard's socket, docs/DASHBOARD.md). They live
 * here, not in the publishing service's folder, because the dashboard subscribes to them and a
 * service never imports another.
 */

/** A benchmark job's progress: at most every 250 ms while it runs, and at each change of state. */
export const BenchProgressEvent = Type.Object({
  jobId: Type.String({ pattern: '^bench_[0-9a-f]{32}$' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  done: Type.Integer(),
  total: Type.Integer(),
  tenantId: Type.Optional(Type.String()),
});

/**
 * What the scheduler did, as its log (`GET /runtime/logs`) records it, plus `task-queued` (not kept
 * in the log). `namespace` is the owner's tenant, `''` for none.
 */
export const SchedulerEvent = Type.Object({
  namespace: Type.String(),
  kind: Type.String(),
  taskId: Type.Union([Type.String(), Type.Null()]),
  scheduleId: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Union([Type.Integer(), Type.Null()]),
  detail: Type.String(),
  at: Type.String(),
});

/**
 * Something the trust service wrote (an event, an appeal or its decision, a dispute, a contract's
 * state or breach, an interaction or observation): live views read again. `what` is the request
 * subject's verb (`record-event`, `appeal`, …); ids when the request or answer names them.
 */
export const TrustChangedEvent = Type.Object({
  what: Type.String(),
  id: Type.Optional(Type.String()),
  subjectId: Type.Optional(Type.String()),
  tenantId: Type.Optional(Type.String()),
});

/**
 * A held MCP gateway call changed (issue 33): `held` (a new request), `decided` (approved or
 * denied), `ran` (the approved call ran once; `callTrace` is its record). Identifiers only, never the
 * arguments: a reader reads `GET /approvals` again. `tenantId` is the caller's tenant, if any.
 */
export const ApprovalChangedEvent = Type.Object({
  what: Type.Union([Type.Literal('held'), Type.Literal('decided'), Type.Literal('ran')]),
  id: Type.String(),
  status: Type.String(),
  server: Type.String(),
  tool: Type.String(),
  tenantId: Type.Optional(Type.String()),
});
