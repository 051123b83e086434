import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hashedJson, type Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { hashCanonical } from '../../../core/chain/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { executionExportRoute } from './execution-export.ts';
import type { Authority } from '../../../edge-http/index.ts';
import { sendError, sendResult } from '../../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../../edge-http/index.ts';

/**
 * Read models of the execution chain (docs/EXECUTION-READS.md): the list, one record's conditions,
 * explanation, replay comparison and lineage, and aggregates. Each is one bus request to the
 * read-model actor; a tenant's token reads only its tenant's records (`tenantId` on every request).
 */

const READ: Authority = { kind: 'scope', scope: 'execution:read' };
const EXECUTION_ID = /^exec_[0-9a-f]{32}$/;
const IdParams = Type.Object({ id: Type.String({ maxLength: 256 }) });

const Limit = Type.Integer({ minimum: 1, maximum: 500, default: 50 });
const Cursor = Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,4400}$' }));
const Word = Type.Optional(Type.String({ minLength: 1, maxLength: 512 }));
const Time = Type.Optional(Type.String({ format: 'date-time' }));

const ListQuery = Type.Object(
  {
    limit: Limit,
    cursor: Cursor,
    subject: Word,
    outcome: Word,
    module: Word,
    action: Word,
    from: Time,
    to: Time,
  },
  { additionalProperties: false },
);

export const KINDS = ['outcome', 'identity', 'capability', 'governance'] as const;
type Kind = (typeof KINDS)[number];
const KIND = `(?:${KINDS.join('|')})`;
export const AttentionQuery = Type.Object(
  {
    limit: Limit,
    cursor: Cursor,
    /** Comma-separated kinds of reason; all four when absent. */
    reason: Type.Optional(Type.String({ pattern: `^${KIND}(?:,${KIND})*$` })),
  },
  { additionalProperties: false },
);

const SubjectPageQuery = Type.Object({ limit: Limit, cursor: Cursor, subject: Word, from: Time, to: Time }, { additionalProperties: false });

const LineageQuery = Type.Object(
  {
    depth: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);

/** A candidate to compare with a record: either or both; hashed here and dropped (core rule 1). */
const ReplayBody = Type.Object({ input: Type.Optional(hashedJson()), output: Type.Optional(hashedJson()) }, { additionalProperties: false });

/** Aggregates read the whole chain (stats also verifies it): give them time. */
const AGGREGATE_TIMEOUT_MS = 120_000;
const CHAIN_TIMEOUT_MS = 600_000;

const tenantOf = (request: FastifyRequest) => {
  const tenantId = request.principal.tenantId;
  return tenantId !== undefined ? { tenantId } : {};
};

/** Stored timestamps are UTC ISO strings; normalise so that text order is time order. */
function timeWindow(q: { from?: string | undefined; to?: string | undefined }) {
  return {
    ...(q.from !== undefined ? { from: new Date(q.from).toISOString() } : {}),
    ...(q.to !== undefined ? { to: new Date(q.to).toISOString() } : {}),
  };
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** An id of another shape names no record: 404, like an unknown one (as GET /executions/{id}). */
function badId(id: string, reply: FastifyReply): boolean {
  if (EXECUTION_ID.test(id)) return false;
  sendError(reply, { code: 'NOT_FOUND', message: 'no execution with this id' });
  return true;
}

export function executionReadRoutes(bus: Bus): EdgeRoutes {
  const exportRoute = executionExportRoute(bus);
  return async (app) => {
    // Static, like the ones below: registered here so that every edge serving the reads serves it.
    await exportRoute(app);

    app.get(
      '/executions',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'listExecutions', 'List execution records, newest first'),
          querystring: ListQuery,
          response: { 200: answer(subjects.executionsList.reply, 'A page of records; `nextCursor` reads the next one') },
        },
      },
      async (request, reply) => {
        const { limit, cursor, subject, outcome, module, action } = request.query;
        return sendResult(
          reply,
          await bus.request(
            subjects.executionsList,
            {
              limit,
              ...defined({ cursor, subject, outcome, module, action }),
              ...timeWindow(request.query),
              ...tenantOf(request),
            },
            { timeoutMs: AGGREGATE_TIMEOUT_MS },
          ),
        );
      },
    );

    // Static segments win over `:id` in find-my-way (execution-reads.test.ts checks /executions/stats).
    app.get(
      '/executions/attention',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'listExecutionsNeedingAttention', 'Records failed, unproven or unauthorised on their face'),
          querystring: AttentionQuery,
          response: { 200: answer(subjects.executionsAttention.reply, 'A page of records, each with the fields that say why') },
        },
      },
      async (request, reply) => {
        const { limit, cursor, reason } = request.query;
        const kinds: Kind[] = reason !== undefined ? [...new Set(reason.split(',') as Kind[])] : [...KINDS];
        return sendResult(
          reply,
          await bus.request(
            subjects.executionsAttention,
            {
              limit,
              kinds,
              ...defined({ cursor }),
              ...tenantOf(request),
            },
            { timeoutMs: AGGREGATE_TIMEOUT_MS },
          ),
        );
      },
    );

    app.get(
      '/executions/authority',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExercisedAuthority', 'Authority exercised per subject, from recorded behaviour'),
          querystring: SubjectPageQuery,
          response: { 200: answer(subjects.executionsAuthority.reply, 'A page of subjects with what they did') },
        },
      },
      async (request, reply) => {
        const { limit, cursor, subject } = request.query;
        return sendResult(
          reply,
          await bus.request(
            subjects.executionsAuthority,
            {
              limit,
              ...defined({ cursor, subject }),
              ...timeWindow(request.query),
              ...tenantOf(request),
            },
            { timeoutMs: AGGREGATE_TIMEOUT_MS },
          ),
        );
      },
    );

    app.get(
      '/executions/cost',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getCostSummary', 'Recorded cost claims: coverage first, totals per currency'),
          querystring: SubjectPageQuery,
          response: { 200: answer(subjects.executionsCost.reply, 'The cost summary and a page of subjects') },
        },
      },
      async (request, reply) => {
        const { limit, cursor, subject } = request.query;
        return sendResult(
          reply,
          await bus.request(
            subjects.executionsCost,
            {
              limit,
              ...defined({ cursor, subject }),
              ...timeWindow(request.query),
              ...tenantOf(request),
            },
            { timeoutMs: AGGREGATE_TIMEOUT_MS },
          ),
        );
      },
    );

    app.get(
      '/executions/stats',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExecutionStats', 'Counts of the records, a live chain verification, and what is not tracked'),
          response: { 200: answer(subjects.executionsStats.reply, 'The aggregates') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.executionsStats, tenantOf(request), { timeoutMs: CHAIN_TIMEOUT_MS })),
    );

    app.get(
      '/executions/unknowns',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExecutionUnknowns', 'Unknowns grouped by the action that would resolve them'),
          response: { 200: answer(subjects.executionsUnknowns.reply, 'Counts of records each action would resolve') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.executionsUnknowns, tenantOf(request), { timeoutMs: AGGREGATE_TIMEOUT_MS })),
    );

    app.get(
      '/executions/:id/conditions',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExecutionConditions', 'The five conditions of a record, each with its state and field'),
          params: IdParams,
          response: { 200: answer(subjects.executionsConditions.reply, 'The five conditions and a conclusion in words'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (badId(request.params.id, reply)) return reply;
        return sendResult(reply, await bus.request(subjects.executionsConditions, { id: request.params.id, ...tenantOf(request) }));
      },
    );

    app.get(
      '/executions/:id/explain',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'explainExecution', 'A record explained in words, from its signed fields'),
          params: IdParams,
          response: { 200: answer(subjects.executionsExplain.reply, 'Sentences, each naming the fields it reads'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (badId(request.params.id, reply)) return reply;
        return sendResult(reply, await bus.request(subjects.executionsExplain, { id: request.params.id, ...tenantOf(request) }));
      },
    );

    // GET: what can be replayed (the stored hashes and how to compute a candidate's).
    app.get(
      '/executions/:id/replay',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExecutionReplay', "What a replay compares: the stored hashes and how to compute a candidate's"),
          params: IdParams,
          response: { 200: answer(subjects.executionsReplay.reply, 'The stored hashes, no candidate'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (badId(request.params.id, reply)) return reply;
        return sendResult(reply, await bus.request(subjects.executionsReplay, { id: request.params.id, ...tenantOf(request) }));
      },
    );

    app.post(
      '/executions/:id/replay',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'replayExecution', "Compare a candidate input or output with a record's hashes"),
          params: IdParams,
          body: ReplayBody,
          response: { 200: answer(subjects.executionsReplay.reply, "Whether the candidate's hashes match"), ...errorsOf(404) },
        },
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
        },
      },
      async (request, reply) => {
        const body = request.body as { input?: unknown; output?: unknown };
        const hasInput = Object.hasOwn(body, 'input');
        const hasOutput = Object.hasOwn(body, 'output');
        if (!hasInput && !hasOutput)
          return sendError(reply, { code: 'INVALID_REQUEST', message: 'body must hold input, output or both (the candidate to compare)' });
        if (badId(request.params.id, reply)) return reply;
        let hashes: { candidateInputHash?: string; candidateOutputHash?: string };
        try {
          hashes = {
            ...(hasInput ? { candidateInputHash: hashCanonical(body.input) } : {}),
            ...(hasOutput ? { candidateOutputHash: hashCanonical(body.output) } : {}),
          };
        } catch {
          // Never echo the candidate: it may be the very content the chain keeps only as a hash.
          return sendError(reply, { code: 'INVALID_REQUEST', message: 'input and output must be JSON that RFC 8785 can canonicalise' });
        }
        return sendResult(reply, await bus.request(subjects.executionsReplay, { id: request.params.id, ...hashes, ...tenantOf(request) }));
      },
    );

    app.get(
      '/executions/:id/lineage',
      {
        config: { authority: READ },
        schema: {
          ...operation('execution-reads', 'getExecutionLineage', 'Records whose content flowed into and out of a record'),
          params: IdParams,
          querystring: LineageQuery,
          response: { 200: answer(subjects.executionsLineage.reply, 'Inherited failures upstream and the blast radius downstream'), ...errorsOf(404) },
        },
      },
      async (request, reply) => {
        if (badId(request.params.id, reply)) return reply;
        const { depth, limit } = request.query;
        return sendResult(
          reply,
          await bus.request(
            subjects.executionsLineage,
            {
              id: request.params.id,
              depth,
              limit,
              ...tenantOf(request),
            },
            { timeoutMs: AGGREGATE_TIMEOUT_MS },
          ),
        );
      },
    );
  };
}
