import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import type { Bus, Result } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import type { ExportPageReply } from '../../../bus/index.ts';
import { exportEndLine, exportHeaderLine, type ExportRange } from '../../../core/chain/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';
import { operation } from '../../../edge-http/index.ts';

/**
 * GET /executions/export (docs/TRACE-FORMAT.md, "Exporting and verifying offline"): the chain, or
 * the range `from`..`to` of it, as the export file that `suite verify` and the documented openssl
 * steps check. It streams: the edge asks the execution reader for one page at a time, the next one
 * while it writes the last, and only as fast as the client reads (the stream pulls a page when the
 * socket has taken the one before), so it holds two pages at most, whatever the chain's length.
 *
 * Before the first byte, a failure is the usual error answer. After it, the status is sent and
 * cannot change: the connection is aborted instead (no end of the chunked body), and the file has
 * no end line, which is how a reader of the file knows it is incomplete.
 */

const Seq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const ExportQuery = Type.Object({ from: Type.Optional(Seq), to: Type.Optional(Seq) }, { additionalProperties: false });

/** Records of the first page: few, so that the first bytes go out at once. */
const FIRST_PAGE = 100;
/** Records of the next pages (each also ends once its lines pass the reader's byte budget). */
const PAGE = 500;
const PAGE_TIMEOUT_MS = 30_000;

type Page = Static<typeof ExportPageReply>;

export function executionExportRoute(bus: Bus): EdgeRoutes {
  return (app) => {
    // A slow reader must not hold the edge's drain until the grace time: exports under way when the
    // edge closes are aborted (their files end without the end line, as for any other failure).
    const streaming = new Set<Readable>();
    app.addHook('preClose', async () => {
      for (const s of streaming) s.destroy(new Error('export aborted: the edge is closing'));
    });

    app.get(
      '/executions/export',
      {
        config: { authority: { kind: 'scope', scope: 'execution:read' } },
        schema: {
          ...operation('executions', 'exportExecutions', 'Export the chain, or a range of it, for offline verification'),
          querystring: ExportQuery,
          response: {
            200: {
              description:
                'The export file, streamed: a header line, one line per record (`<hash> <signature> <signed bytes>`), an end line (docs/TRACE-FORMAT.md)',
              content: { 'text/plain': { schema: Type.String() } },
            },
          },
        },
      },
      async (request, reply) => {
        const { from = 1, to } = request.query;
        if (to !== undefined && from > to) return sendError(reply, { code: 'INVALID_REQUEST', message: 'from must not be greater than to' });
        // A tenant's token exports only its tenant's records, as it reads only those (docs/EXECUTION-READS.md).
        const tenantId = request.principal.tenantId;
        const page = (afterSeq: number, toSeq: number | undefined, limit: number) =>
          bus.request(
            subjects.executionsExportPage,
            {
              afterSeq,
              limit,
              ...(toSeq !== undefined ? { toSeq } : {}),
              ...(tenantId !== undefined ? { tenantId } : {}),
            },
            { timeoutMs: PAGE_TIMEOUT_MS },
          );
        const first = await page(from - 1, to, FIRST_PAGE);
        if (!first.ok) return sendError(reply, first.error);
        const range: ExportRange = { from, to: first.value.toSeq, tenantId: tenantId ?? null };
        const next = (afterSeq: number) => page(afterSeq, range.to, PAGE);
        const body = Readable.from(exportFile(range, first.value, next), { objectMode: false, highWaterMark: 64 * 1024 });
        streaming.add(body);
        body.once('close', () => streaming.delete(body));
        // Not application/x-ndjson: the record lines are `<hash> <signature> <signed bytes>`, not JSON.
        return (
          reply
            .code(200)
            .header('content-type', 'text/plain; charset=utf-8')
            .header('content-disposition', `attachment; filename="executions-${range.from}-${range.to}.trace"`)
            .header('cache-control', 'no-store')
            // A stream is sent as it is read (no serializer); the schema describes the text it makes.
            .send(body as unknown as string)
        );
      },
    );
  };
}

/** The file's bytes: header, the pages as they come, and the end line once every record was written. */
async function* exportFile(range: ExportRange, first: Page, next: (afterSeq: number) => Promise<Result<Page>>): AsyncGenerator<Buffer> {
  yield Buffer.from(`${exportHeaderLine(range)}\n`);
  let page = first;
  let records = 0;
  for (;;) {
    // The next page is asked for while this one is written; a client gone meanwhile leaves it unread.
    const ahead = page.done ? undefined : next(page.lastSeq);
    // A page may hold only lines of records pruned under retention (records 0, lines not empty).
    if (page.lines.length > 0) yield Buffer.from(page.lines, 'base64');
    records += page.records;
    if (!ahead) break;
    const after = page.lastSeq;
    const r = await ahead;
    if (!r.ok) throw new Error(`export aborted after ${records} records: ${r.error.code} ${r.error.message}`);
    if (!r.value.done && r.value.lastSeq <= after) throw new Error(`export aborted after ${records} records: a page that does not move on`);
    page = r.value;
  }
  yield Buffer.from(`${exportEndLine(records)}\n`);
}
