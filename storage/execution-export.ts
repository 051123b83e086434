import { sql, type CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { rowSchema } from './row-schema.ts';

/**
 * Pages of the execution chain for GET /executions/export, in seq order: records after `afterSeq`
 * up to `toSeq` (inclusive), at most `limit`, only `tenantId`'s when one is given (index
 * `(tenant_id, seq)`). As for verification (execution-scan.ts), the database builds one text of
 * JSON arrays, one record per line, which `jsonRows` and `scannedExecution` read back into records
 * without a row schema: a record edited in the database must still be exported as it is, so that
 * verification names it; a record pruned under retention comes as its tombstone. '' when there are none.
 */
export async function executionsExportJson(
  db: CommonQueryMethods,
  p: { afterSeq: number; toSeq: number; limit: number; tenantId?: string | undefined },
): Promise<string> {
  const tenant = p.tenantId !== undefined ? sql.fragment`and tenant_id = ${p.tenantId}` : sql.fragment``;
  return db.oneFirst(sql.type(PageRow)`
    select coalesce(string_agg(row, E'\n' order by seq), '') as page from (
      select seq, json_build_array(seq, id, ts, subject, scope, module, action, outcome, input_hash, output_hash, cost,
        governance, attested, prev_hash, key_id, hash, signature)::text as row
      from executions where seq > ${p.afterSeq} and seq <= ${p.toSeq} ${tenant}
      union all
      -- Records pruned under retention, where they stood (execution-scan.ts, scannedExecution).
      select seq, json_build_array(seq, id, null, null, null, null, null, null, null, null, null, null, null, prev_hash,
        key_id, hash, signature, true)::text as row
      from execution_log_pruned where seq > ${p.afterSeq} and seq <= ${p.toSeq} ${tenant}
      order by seq limit ${p.limit}) page`);
}

const PageRow = rowSchema(Type.Object({ page: Type.String() }));
