import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { billedTenantOf, errorBody, sendResult, type EdgeRoutes } from '../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../edge-http/index.ts';
import { schedulerSubjects as subjects } from './subjects.ts';
import { LogsRequest, QueueBody, QueueListRequest, ScheduleBody, TaskState, TaskView, type Owner } from './schemas.ts';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 256 }) });
const PageQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  },
  { additionalProperties: false },
);
const QueueQuery = Type.Object(
  { ...PageQuery.properties, state: Type.Optional(TaskState), scheduleId: Type.Optional(QueueListRequest.properties.scheduleId) },
  { additionalProperties: false },
);
// `limit` defaults like every paginated route's (issue 23 part 6: without it the route answered 400).
const LogsQuery = Type.Object({ limit: PageQuery.properties.limit, before: LogsRequest.properties.before }, { additionalProperties: false });

const Task = TaskView;
const ScheduleView = subjects.schedulePause.reply;

/** Who is asking, as the capability check verified it: stored with what they create, traced in their name. */
function ownerOf(request: FastifyRequest): Owner {
  const p = request.principal;
  const tenantId = p.tenantId ?? billedTenantOf(request) ?? null;
  return { jti: p.jti ?? null, sub: p.sub ?? 'anonymous', scope: [...p.scope], proven: p.proven === true, tenantId };
}

const namespaceOf = (request: FastifyRequest) => ownerOf(request).tenantId ?? '';

/**
 * The scheduler edge (listener 8082; spec, "Scheduler"; docs/SCHEDULER.md): HTTP only, every
 * decision made by the scheduler actor over the bus.
 */
export function schedulerRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.post(
      '/schedule',
      {
        config: { authority: { kind: 'scope', scope: 'schedule:create' }, meter: 'schedules' },
        schema: {
          ...operation('schedules', 'createSchedule', 'Register a cron schedule'),
          body: ScheduleBody,
          response: { 201: answer(subjects.scheduleCreate.reply, 'Registered: its next run, and whether it survives a restart'), ...errorsOf(409) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.scheduleCreate, { ...request.body, owner: ownerOf(request) }), 201),
    );

    app.get(
      '/schedule',
      {
        config: { authority: { kind: 'scope', scope: 'schedule:read' } },
        schema: {
          ...operation('schedules', 'listSchedules', 'List the schedules'),
          querystring: PageQuery,
          response: { 200: answer(subjects.scheduleList.reply, 'A page of schedules and their total') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.scheduleList, { namespace: namespaceOf(request), ...request.query })),
    );

    app.get(
      '/schedule/:id',
      {
        config: { authority: { kind: 'scope', scope: 'schedule:read' } },
        schema: {
          ...operation('schedules', 'getSchedule', 'Read one schedule'),
          params: IdParams,
          response: { 200: answer(subjects.scheduleGet.reply, 'The schedule'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.scheduleGet, { namespace: namespaceOf(request), id: request.params.id })),
    );

    app.delete(
      '/schedule/:id',
      {
        config: { authority: { kind: 'scope', scope: 'schedule:create' } },
        schema: {
          ...operation('schedules', 'deleteSchedule', 'Delete a schedule'),
          params: IdParams,
          response: { 200: answer(subjects.scheduleDelete.reply, 'Deleted'), ...errorsOf(404) },
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(subjects.scheduleDelete, { namespace: namespaceOf(request), id: request.params.id, actor: ownerOf(request).sub })),
    );

    for (const [verb, subject] of [
      ['pause', subjects.schedulePause],
      ['resume', subjects.scheduleResume],
    ] as const) {
      app.post(
        `/schedule/:id/${verb}`,
        {
          config: { authority: { kind: 'scope', scope: 'schedule:create' } },
          schema: {
            ...operation('schedules', `${verb}Schedule`, verb === 'pause' ? 'Pause a schedule' : 'Resume a paused schedule'),
            params: IdParams,
            response: { 200: answer(ScheduleView, `The schedule, ${verb === 'pause' ? 'paused' : 'resumed'}`), ...errorsOf(404) },
          },
        },
        async (request, reply) =>
          sendResult(reply, await bus.request(subject, { namespace: namespaceOf(request), id: request.params.id, actor: ownerOf(request).sub })),
      );
    }

    app.post(
      '/queue',
      {
        config: { authority: { kind: 'scope', scope: 'queue:write' } },
        schema: {
          ...operation('queue', 'enqueueTask', 'Queue a task'),
          body: QueueBody,
          response: { 201: answer(Task, 'Queued'), ...errorsOf(409, 429) },
        },
      },
      async (request, reply) => {
        const result = await bus.request(subjects.enqueue, { ...request.body, owner: ownerOf(request) });
        if (!result.ok) return sendResult(reply, result);
        if (!result.value.accepted) {
          return reply.code(429).header('retry-after', String(result.value.retryAfterSeconds)).send(errorBody('RATE_LIMITED', result.value.message));
        }
        return reply.code(201).send(result.value.task);
      },
    );

    app.get(
      '/queue',
      {
        config: { authority: { kind: 'scope', scope: 'queue:read' } },
        schema: {
          ...operation('queue', 'listTasks', 'List the queued and finished tasks'),
          querystring: QueueQuery,
          response: { 200: answer(subjects.queueList.reply, 'A page of tasks and their total') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.queueList, { namespace: namespaceOf(request), ...request.query })),
    );

    app.get(
      '/queue/:id/status',
      {
        config: { authority: { kind: 'scope', scope: 'queue:read' } },
        schema: {
          ...operation('queue', 'getTaskStatus', "Read a task's state and attempts"),
          params: IdParams,
          response: { 200: answer(subjects.taskStatus.reply, 'The task, with the history of its attempts'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.taskStatus, { namespace: namespaceOf(request), id: request.params.id })),
    );

    app.get(
      '/runtime/health',
      {
        config: { authority: { kind: 'scope', scope: 'runtime:read' } },
        schema: {
          ...operation('runtime', 'getRuntimeHealth', "The scheduler's workers, queue depth and breakers"),
          response: { 200: answer(subjects.health.reply, "The runtime's health") },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.health, { namespace: namespaceOf(request) })),
    );

    app.get(
      '/runtime/logs',
      {
        config: { authority: { kind: 'scope', scope: 'runtime:read' } },
        schema: {
          ...operation('runtime', 'getRuntimeLogs', "The scheduler's event log, newest first"),
          querystring: LogsQuery,
          response: { 200: answer(subjects.logs.reply, 'A page of events; `next` reads the older ones') },
        },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(subjects.logs, {
            namespace: namespaceOf(request),
            limit: request.query.limit,
            ...(request.query.before !== undefined ? { before: request.query.before } : {}),
          }),
        ),
    );
  };
}
