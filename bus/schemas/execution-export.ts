import { Type } from 'typebox';

/**
 * GET /executions/export crosses the bus as a series of requests, one per page, which the edge
 * makes as its client reads (docs/TRACE-FORMAT.md, "Exporting and verifying offline"): each asks
 * for the records after the last one it has, so a page lost or repeated cannot skip or double
 * one, and any reader replica can answer any page.
 */

const Seq = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const ExportPageRequest = Type.Object(
  {
    /** Records after this seq (the first page: `from - 1`). */
    afterSeq: Seq,
    /** The last seq of the export; absent on the first page: the chain's head, or `to` when lower. */
    toSeq: Type.Optional(Seq),
    /** Only this tenant's records. */
    tenantId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /** At most this many records (the first page is small, so that the first bytes go out early). */
    limit: Type.Integer({ minimum: 1, maximum: 1000 }),
  },
  { additionalProperties: false },
);

export const ExportPageReply = Type.Object({
  /** The export lines of the page, each ending with a newline, as base64 of their UTF-8 bytes. */
  lines: Type.String({ contentEncoding: 'base64' }),
  records: Type.Integer({ minimum: 0 }),
  /** Seq of the page's last record (`afterSeq` when it holds none): the next page starts after it. */
  lastSeq: Seq,
  /** The export's last seq, fixed by the first page. */
  toSeq: Seq,
  /** No record of the range lies after this page. */
  done: Type.Boolean(),
});
