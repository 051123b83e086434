import type { CommonQueryMethods } from 'slonik';
import { lineageStep, type LineageNode } from '../../../../storage/index.ts';

/**
 * Lineage of one record (spec, "Lineage response"). An edge runs from a producer to a consumer when
 * the consumer's inputHash equals the producer's outputHash and the consumer started no earlier:
 * the same content moved, which is not causation (the same bytes may have been produced twice).
 * Walked breadth first, one SQL query per level, up to `depth` levels and `limit` records each
 * way; a record is reached once, at its smallest depth, so cycles end.
 */
export const LINEAGE_MEANING =
  "An edge joins a producer to a consumer when the consumer's inputHash equals the producer's outputHash " +
  'and the consumer was recorded no earlier. It shows that the same content moved between records, not that one caused the other.';

export interface Reached {
  id: string;
  subject: string;
  outcome: string;
  depth: number;
}

export interface Walk {
  records: Reached[];
  count: number;
  maxDepth: number;
  /** Stopped at the record limit, or records lie beyond the last level walked. */
  truncated: boolean;
}

type Root = Pick<LineageNode, 'id' | 'timestamp' | 'inputHash' | 'outputHash'>;

export async function walkLineage(
  db: CommonQueryMethods,
  root: Root,
  o: { direction: 'upstream' | 'downstream'; depth: number; limit: number; tenantId?: string },
): Promise<Walk> {
  const link = (n: Pick<LineageNode, 'inputHash' | 'outputHash'>) => (o.direction === 'downstream' ? n.outputHash : n.inputHash);
  const seen = new Set([root.id]);
  const records: Reached[] = [];
  let frontier: Root[] = [root];
  let truncated = false;
  for (let depth = 1; frontier.length > 0; depth++) {
    const from = frontier.flatMap((n) => {
      const hash = link(n);
      return hash === null ? [] : [{ hash, timestamp: n.timestamp }];
    });
    // One more than fits, to tell "exactly full" from "more beyond".
    const room = depth > o.depth ? 1 : o.limit - records.length + 1;
    const found = await lineageStep(db, {
      direction: o.direction,
      from,
      exclude: [...seen],
      limit: room,
      ...(o.tenantId !== undefined ? { tenantId: o.tenantId } : {}),
    });
    if (depth > o.depth || records.length + found.length > o.limit) {
      truncated = found.length > 0;
      const fits = depth > o.depth ? [] : found.slice(0, o.limit - records.length);
      for (const n of fits) records.push({ id: n.id, subject: n.subject, outcome: n.outcome, depth });
      break;
    }
    for (const n of found) {
      seen.add(n.id);
      records.push({ id: n.id, subject: n.subject, outcome: n.outcome, depth });
    }
    frontier = found;
  }
  return { records, count: records.length, maxDepth: records.reduce((m, r) => Math.max(m, r.depth), 0), truncated };
}
