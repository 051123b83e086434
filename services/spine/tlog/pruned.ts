import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../../bus/index.ts';
import { getPrunedExecution } from '../../../storage/index.ts';
import { readCheckpointOfSize } from './store.ts';

/**
 * What the tombstone of a record pruned under retention says (docs/TENANCY.md, "Retention"), with
 * the root of the checkpoint that first covered its leaf; NOT_FOUND when no record of this id was
 * pruned. The edge decides who may learn it (a tenant only of its own).
 */
export async function prunedRecord(db: CommonQueryMethods, id: string) {
  const p = await getPrunedExecution(db, id);
  if (!p) throw new SuiteError('NOT_FOUND', 'no execution with this id');
  const checkpoint = await readCheckpointOfSize(db, p.checkpointSize);
  if (!checkpoint) throw new SuiteError('INTERNAL_ERROR', `the checkpoint of size ${p.checkpointSize} that covered pruned record ${p.seq} is missing`);
  return {
    id: p.id,
    seq: p.seq,
    tenantId: p.tenantId,
    prunedAt: p.prunedAt.toISOString(),
    checkpointSize: p.checkpointSize,
    checkpointRoot: checkpoint.root.toString('base64'),
  };
}
