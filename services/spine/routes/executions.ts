import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects, ExecutionBody, executionClaim } from '../../../bus/index.ts';
import { KeyId, SuppliedRecordSchema } from '../../../bus/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError, sendResult } from '../../../edge-http/index.ts';
import { answer, carriedDecision, errorsOf, operation } from '../../../edge-http/index.ts';
import { answerNotFound } from './pruned.ts';
import { carryAppends } from './carried-append.ts';

/** Optional `Idempotency-Key` (1-200 printable ASCII characters), per token subject. */
const RecordHeaders = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ pattern: '^[\\x20-\\x7E]{1,200}$' })) });

const IdParams = Type.Object({ id: Type.String({ maxLength: 256 }) });
const EXECUTION_ID = /^exec_[0-9a-f]{32}$/;
const KeyQuery = Type.Object({ keyId: Type.Optional(KeyId) }, { additionalProperties: false });

/**
 * Body of `POST /executions/verify` (the spec leaves it open; docs/TRACE-FORMAT.md documents it):
 * `record` (a full record as `GET /executions/{id}` returns it) or `id` (a stored record), or
 * neither for the whole chain; `publicKey` (PEM) checks every signature against that key instead
 * of the published ones.
 */
export const VerifyBody = Type.Object(
  {
    record: Type.Optional(SuppliedRecordSchema),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    publicKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);

const Recorded = subjects.executionsRecord.reply.properties.record;
/** A record read back: stored content, which verification judges; its shape only is promised. */
const StoredRecord = answer(subjects.executionsGet.reply.properties.record, 'The record, every signed field with its hash and signature');

/** A whole-chain verification reads every record: give it time (a million records take minutes). */
const VERIFY_TIMEOUT_MS = 600_000;

/** Execution trace routes of the token service: record, read one, verify, public key. */
export function executionRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    // Appends in flight when the lease moves or the bus reconnects are sent again at once (carried-append.ts).
    const appends = carryAppends(bus);
    app.addHook('onClose', async () => appends.stop());
    app.post(
      '/executions',
      {
        // The allow's audit entry is committed with the record: one durable write per append (issue 34, item 1).
        config: { authority: { kind: 'scope', scope: 'execution:record', carry: true } },
        schema: {
          ...operation('executions', 'recordExecution', 'Record an execution: hashed, chained and signed'),
          body: ExecutionBody,
          headers: RecordHeaders,
          response: {
            201: answer(Recorded, 'Recorded: the new record'),
            200: answer(Recorded, 'A retry with the same `Idempotency-Key` (by the client, or by the edge at a failover): the record the key made first'),
            ...errorsOf(409),
          },
        },
      },
      async (request, reply) => {
        const made = executionClaim(request.body);
        if (!made.ok) return sendError(reply, { code: 'INVALID_REQUEST', message: made.message });
        const p = request.principal;
        const key = request.headers['idempotency-key'];
        const decision = carriedDecision(request);
        const result = await appends.record({
          claim: made.claim,
          // What the edge knows for certain: the verified token's claims and the time of arrival.
          attested: { jti: p.jti ?? null, sub: p.sub ?? 'anonymous', scope: [...p.scope], proven: p.proven === true, tenantId: p.tenantId ?? null },
          timestamp: new Date().toISOString(),
          ...(key !== undefined ? { idempotencyKey: key } : {}),
          ...(decision !== undefined ? { audit: decision.entry } : {}),
        });
        // Made by this request: its record's commit holds the entry. Otherwise (refused, failed, unknown,
        // or a retry answered with an earlier request's record) the answer waits for the journal's copy.
        if (decision !== undefined && result.ok && !result.value.replayed) decision.committedWithWrite();
        if (!result.ok) return sendError(reply, result.error);
        return reply.code(result.value.replayed ? 200 : 201).send(result.value.record);
      },
    );

    // Static segments win over `:id` in find-my-way, whatever the registration order
    // (executions.test.ts checks `/executions/public-key` still answers).
    app.get(
      '/executions/public-key',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('executions', 'getTracePublicKey', 'The public key that verifies trace signatures'),
          querystring: KeyQuery,
          response: { 200: answer(subjects.executionsKeys.reply, 'The current key, or the one `keyId` names'), ...errorsOf(404, 503) },
        },
      },
      async (request, reply) =>
        sendResult(reply, await bus.request(subjects.executionsKeys, request.query.keyId !== undefined ? { keyId: request.query.keyId } : {})),
    );

    app.post(
      '/executions/verify',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('executions', 'verifyExecutions', 'Verify one record, a stored one, or the whole chain'),
          body: VerifyBody,
          response: {
            200: answer(subjects.executionsVerify.reply, 'The verification result (`mode` says of what); `valid: false` names where and why'),
            ...errorsOf(404, 503),
          },
        },
        // No body at all (`curl -X POST .../executions/verify`) means the whole chain, like `{}`.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) (request as { body: unknown }).body = {};
        },
      },
      async (request, reply) => {
        const b = request.body;
        if (b.record !== undefined && b.id !== undefined) return sendError(reply, { code: 'INVALID_REQUEST', message: 'give either record or id, not both' });
        return sendResult(reply, await bus.request(subjects.executionsVerify, b, { timeoutMs: VERIFY_TIMEOUT_MS }));
      },
    );

    app.get(
      '/executions/:id',
      {
        config: { authority: { kind: 'scope', scope: 'execution:read' } },
        schema: {
          ...operation('executions', 'getExecution', 'Read one execution record'),
          params: IdParams,
          response: { 200: StoredRecord, ...errorsOf(404, 410) },
        },
      },
      async (request, reply) => {
        // An id of another shape names no record: 404, like an unknown one.
        if (!EXECUTION_ID.test(request.params.id)) return sendError(reply, { code: 'NOT_FOUND', message: 'no execution with this id' });
        const result = await bus.request(subjects.executionsGet, { id: request.params.id });
        const tenantId = request.principal.tenantId;
        if (!result.ok) return answerNotFound(bus, reply, request.params.id, tenantId, result.error);
        // A tenant's token reads only its tenant's records, as on GET /audit; another's is "not found".
        const recordTenant = (result.value.record.attested as { tenantId?: unknown } | null)?.tenantId;
        if (tenantId !== undefined && recordTenant !== tenantId) return sendError(reply, { code: 'NOT_FOUND', message: 'no execution with this id' });
        return reply.code(200).send(result.value.record);
      },
    );

    app.get(
      '/executions-verify-chain',
      {
        config: { authority: { kind: 'scope', scope: 'execution:read', admin: true } },
        schema: {
          ...operation('executions', 'verifyExecutionChain', 'Verify the whole execution chain'),
          response: { 200: answer(subjects.executionsVerify.reply, 'The chain verification result') },
        },
      },
      async (_request, reply) => sendResult(reply, await bus.request(subjects.executionsVerify, {}, { timeoutMs: VERIFY_TIMEOUT_MS })),
    );
  };
}
