import { Type, type Static } from 'typebox';
import { AttestationSchema, Text } from '../../bus/index.ts';

/**
 * Bodies and bus messages of the scheduler (spec, "Task definition", "Scheduler"; docs/SCHEDULER.md).
 * Every duration is in milliseconds. Shapes only: the rules that need more than a schema (the task's
 * fields per type, header names, a body JSON can carry) are `taskProblem` (core/scheduling).
 */

export const ItemId = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' });
const HeaderName = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$";
const HeaderValue = Type.String({ maxLength: 8192, pattern: '^[\\t\\x20-\\x7E\\x80-\\uD7FF\\uE000-\\uFFFF]*$' });

export const TaskSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('http'), Type.Literal('script')]),
    // Text: no NUL, no lone surrogate (Postgres jsonb and the trace hash refuse both).
    url: Type.Optional(Text(4096)),
    method: Type.Optional(Type.Union(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => Type.Literal(m)))),
    headers: Type.Optional(Type.Record(Type.String({ pattern: HeaderName }), HeaderValue, { maxProperties: 64 })),
    body: Type.Optional(Type.Unknown()),
    script: Type.Optional(Text(1024)),
    args: Type.Optional(Type.Array(Text(4096, 0), { maxItems: 64 })),
  },
  { additionalProperties: false },
);
export type Task = Static<typeof TaskSchema>;

export const RetrySchema = Type.Object(
  {
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    backoff: Type.Optional(Type.Union([Type.Literal('fixed'), Type.Literal('exponential')])),
    baseDelay: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);

export const Timeout = Type.Integer({ minimum: 1, maximum: 600_000 });
export const Priority = Type.Union([Type.Literal('high'), Type.Literal('normal'), Type.Literal('low')]);
export type PriorityName = Static<typeof Priority>;

export const ScheduleBody = Type.Object(
  {
    id: ItemId,
    cron: Text(256),
    timezone: Type.Optional(Text(64)),
    task: TaskSchema,
    retry: Type.Optional(RetrySchema),
    timeout: Type.Optional(Timeout),
  },
  { additionalProperties: false },
);

export const QueueBody = Type.Object(
  {
    id: Type.Optional(ItemId),
    priority: Type.Optional(Priority),
    delay: Type.Optional(Type.Integer({ minimum: 0, maximum: 31 * 24 * 3_600_000 })),
    task: TaskSchema,
    retry: Type.Optional(RetrySchema),
    timeout: Type.Optional(Timeout),
  },
  { additionalProperties: false },
);

/** Who asked, as the edge verified it; recorded with the item so each attempt's trace is in its name. */
export const OwnerSchema = AttestationSchema;
export type Owner = Static<typeof OwnerSchema>;

const Page = { limit: Type.Integer({ minimum: 1, maximum: 500 }), offset: Type.Integer({ minimum: 0, maximum: 1_000_000 }) };
const Iso = Type.String();
const NullableIso = Type.Union([Iso, Type.Null()]);

export const ScheduleCreateRequest = Type.Object({ ...ScheduleBody.properties, owner: OwnerSchema });
export const ScheduleCreateReply = Type.Object({ id: Type.String(), nextRun: NullableIso, durable: Type.Boolean() });

export const ScheduleView = Type.Object({
  id: Type.String(),
  cron: Type.String(),
  timezone: Type.Union([Type.String(), Type.Null()]),
  task: Type.Unknown(),
  retry: Type.Unknown(),
  timeout: Type.Integer(),
  state: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  nextRun: NullableIso,
  lastFiredAt: NullableIso,
  firings: Type.Integer(),
  createdAt: Iso,
});

export const NamespaceOnly = { namespace: Type.String({ maxLength: 128 }) };
export const ScheduleListRequest = Type.Object({ ...NamespaceOnly, ...Page });
export const ScheduleListReply = Type.Object({ schedules: Type.Array(ScheduleView), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
export const ScheduleGetRequest = Type.Object({ ...NamespaceOnly, id: Type.String({ maxLength: 256 }) });
export const ScheduleItemRequest = Type.Object({ ...NamespaceOnly, id: Type.String({ maxLength: 256 }), actor: Type.String({ maxLength: 512 }) });
export const ScheduleDeleteReply = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const TaskState = Type.Union(['queued', 'running', 'retrying', 'succeeded', 'failed', 'dead'].map((s) => Type.Literal(s)));
export const TaskView = Type.Object({
  id: Type.String(),
  state: Type.String(),
  priority: Priority,
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  lastStatus: Type.Union([Type.Integer(), Type.Null()]),
  scheduleId: Type.Union([Type.String(), Type.Null()]),
  dueAt: NullableIso,
  createdAt: Iso,
  runAfter: Iso,
  startedAt: NullableIso,
  finishedAt: NullableIso,
  updatedAt: Iso,
});

export const EnqueueRequest = Type.Object({ ...QueueBody.properties, owner: OwnerSchema });
/** `accepted: false` when the queue is full: the edge answers 429 with `Retry-After`. */
export const EnqueueReply = Type.Union([
  Type.Object({ accepted: Type.Literal(true), task: TaskView }),
  Type.Object({ accepted: Type.Literal(false), retryAfterSeconds: Type.Integer(), message: Type.String() }),
]);
export const QueueListRequest = Type.Object({
  ...NamespaceOnly,
  ...Page,
  state: Type.Optional(TaskState),
  scheduleId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
export const QueueListReply = Type.Object({ tasks: Type.Array(TaskView), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
/** One ended attempt of a task, with the id of its record on the execution chain (its signed trace). */
export const AttemptView = Type.Object({
  attempt: Type.Integer(),
  startedAt: Iso,
  endedAt: Iso,
  outcome: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  traceId: Type.Union([Type.String(), Type.Null()]),
});
/** `GET /queue/{id}/status`: the task and its ended attempts, first to last. */
export const TaskStatusReply = Type.Object({ ...TaskView.properties, history: Type.Array(AttemptView) });
export const TaskStatusRequest = Type.Object({ ...NamespaceOnly, id: Type.String({ maxLength: 256 }) });

export const HealthRequest = Type.Object({ ...NamespaceOnly });
export const HealthReply = Type.Object({
  outboundPolicy: Type.Object({ source: Type.String(), allow: Type.Array(Type.String()) }),
  scripts: Type.Object({ enabled: Type.Boolean() }),
  workers: Type.Object({ replica: Type.String(), slots: Type.Integer(), busy: Type.Integer(), replicasWithLeases: Type.Integer() }),
  queue: Type.Object({
    depth: Type.Object({ high: Type.Integer(), normal: Type.Integer(), low: Type.Integer() }),
    running: Type.Integer(),
    oldestWaitingMs: Type.Union([Type.Integer(), Type.Null()]),
    maxLength: Type.Integer(),
  }),
  breakers: Type.Array(Type.Object({ host: Type.String(), state: Type.String() })),
});
export const LogsRequest = Type.Object({
  ...NamespaceOnly,
  limit: Page.limit,
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
});
export const LogEvent = Type.Object({
  seq: Type.Integer(),
  at: Iso,
  kind: Type.String(),
  taskId: Type.Union([Type.String(), Type.Null()]),
  scheduleId: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Union([Type.Integer(), Type.Null()]),
  detail: Type.String(),
});
export const LogsReply = Type.Object({ events: Type.Array(LogEvent), next: Type.Union([Type.Integer(), Type.Null()]) });
