import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { LogConsistencyReply, LogProofReply, LogReceiptReply, subjects } from '../../../bus/index.ts';
import { logPaths, LOG_PREFIX, parseTilePath, TILE_WIDTH } from '../../../core/tlog/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { answer, errorsOf, operation, sendError, sendResult } from '../../../edge-http/index.ts';
import { answerNotFound } from './pruned.ts';

/**
 * The execution chain as a C2SP tlog-tiles log (docs/TRACE-FORMAT.md, "The transparency log"),
 * under `/executions/log` on the token listener. Checkpoints, the verifier key, hash tiles and
 * proofs are public, like the public key (core rule 3: verifying needs no credential); they hold
 * hashes only. Entry bundles and receipts hold the records themselves (who did what), so they ask
 * `execution:read`, as reading a record does, and a tenant's token gets only its own receipts.
 */
const Size = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const IdParams = Type.Object({ id: Type.String({ pattern: '^exec_[0-9a-f]{32}$' }) });
const ProofQuery = Type.Object({ size: Type.Optional(Size) }, { additionalProperties: false });
const ConsistencyQuery = Type.Object({ from: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), to: Size }, { additionalProperties: false });

const NOTE = { description: 'A signed note (text)', content: { 'text/plain': { schema: Type.String() } } };
const TILE = {
  description: "The tile's bytes: 32-byte hashes, or length-prefixed entries",
  content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } },
};

/** Full tiles and bundles never change (tlog-tiles: "immutable"): any CDN may keep them. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function executionLogRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.get(
      logPaths.checkpoint,
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('transparency-log', 'getLogCheckpoint', 'The latest signed checkpoint (C2SP tlog-checkpoint, signed note)'),
          response: { 200: NOTE },
        },
      },
      async (_request, reply) => {
        const r = await bus.request(subjects.executionsLogCheckpoint, {});
        // "None yet" (the log is starting) is no more cacheable than a checkpoint.
        if (!r.ok) return sendError(reply.header('cache-control', 'no-store'), r.error);
        // Mutable: a new one at least every second while records arrive.
        return reply.code(200).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(r.value.note);
      },
    );

    app.get(
      logPaths.vkey,
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('transparency-log', 'getLogVerifierKey', "The checkpoints' verifier key (signed-note vkey)"), response: { 200: NOTE } },
      },
      async (_request, reply) => {
        const r = await bus.request(subjects.executionsLogVkey, {});
        if (!r.ok) return sendError(reply, r.error);
        return reply.code(200).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(`${r.value.vkey}\n`);
      },
    );

    // One wildcard for `tile/<L>/<N>[.p/<W>]`: N spans several segments. The static `entries`
    // segment of the next route wins over it (find-my-way), so hash tiles and bundles are apart.
    app.get(
      logPaths.tileRoute,
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('transparency-log', 'getLogTile', 'A hash tile: <L>/<N>[.p/<W>], N in x-segments (C2SP tlog-tiles)'), response: { 200: TILE } },
      },
      async (request, reply) => tileAnswer(bus, reply, parseTilePath(wildcard(request.params)), 'hashes'),
    );

    app.get(
      logPaths.entriesRoute,
      {
        config: { authority: { kind: 'scope', scope: 'execution:read' } },
        schema: { ...operation('transparency-log', 'getLogEntryBundle', 'An entry bundle: <N>[.p/<W>] (C2SP tlog-tiles)'), response: { 200: TILE } },
      },
      async (request, reply) => {
        // A bundle holds every tenant's records: a tenant's token reads its own receipts instead.
        if (request.principal.tenantId !== undefined) {
          return sendError(reply, {
            code: 'CAPABILITY_INSUFFICIENT',
            message: "entry bundles hold every tenant's records; a tenant's token reads its own receipts",
          });
        }
        return tileAnswer(bus, reply, parseTilePath(`entries/${wildcard(request.params)}`), 'entries');
      },
    );

    app.get(
      `${LOG_PREFIX}/consistency`,
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('transparency-log', 'getLogConsistencyProof', 'A consistency proof between two tree sizes (RFC 6962)'),
          querystring: ConsistencyQuery,
          response: { 200: answer(LogConsistencyReply, 'The proof') },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.executionsLogConsistency, request.query)),
    );

    app.get(
      '/executions/:id/proof',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('transparency-log', 'getExecutionInclusionProof', "A record's inclusion proof in the tree of a size"),
          params: IdParams,
          querystring: ProofQuery,
          response: { 200: answer(LogProofReply, 'The proof, with the leaf index'), ...errorsOf(404) },
        },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(subjects.executionsLogProof, {
            id: request.params.id,
            ...(request.query.size !== undefined ? { size: request.query.size } : {}),
          }),
        ),
    );

    app.get(
      '/executions/:id/receipt',
      {
        config: { authority: { kind: 'scope', scope: 'execution:read' } },
        schema: {
          ...operation('transparency-log', 'getExecutionReceipt', 'An offline receipt: the record, an inclusion proof and the signed checkpoint'),
          params: IdParams,
          response: { 200: answer(LogReceiptReply, 'The receipt'), ...errorsOf(404, 410) },
        },
      },
      async (request, reply) => {
        const r = await bus.request(subjects.executionsLogReceipt, { id: request.params.id });
        const tenantId = request.principal.tenantId;
        if (!r.ok) return answerNotFound(bus, reply, request.params.id, tenantId, r.error);
        if (tenantId !== undefined && r.value.record.attested.tenantId !== tenantId)
          return sendError(reply, { code: 'NOT_FOUND', message: 'no execution with this id' });
        return reply.code(200).send(r.value);
      },
    );
  };
}

/**
 * The rest of a tile path. No params schema: TypeBox reads a `*` key as a pattern; parseTilePath is
 * the check (strict, with a reason), and the router already refuses over-long parameters.
 */
function wildcard(params: unknown): string {
  const rest = (params as Record<string, unknown>)['*'];
  return typeof rest === 'string' ? rest : '';
}

async function tileAnswer(bus: Bus, reply: FastifyReply, tile: ReturnType<typeof parseTilePath>, kind: 'hashes' | 'entries'): Promise<never> {
  if (typeof tile === 'string') return sendError(reply, { code: 'INVALID_REQUEST', message: tile });
  if ((tile.level === 'entries') !== (kind === 'entries')) return sendError(reply, { code: 'INVALID_REQUEST', message: 'tile level must be 0 to 63' });
  const r = await bus.request(subjects.executionsLogTile, tile);
  if (!r.ok) return sendError(reply, r.error);
  const full = tile.width === TILE_WIDTH;
  // Bytes, not the schema's string: the serializer is bypassed for a Buffer.
  return reply
    .code(200)
    .header('content-type', 'application/octet-stream')
    .header('cache-control', full ? IMMUTABLE : 'no-store')
    .send(Buffer.from(r.value.bytes, 'base64'));
}
