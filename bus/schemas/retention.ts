import { Type } from 'typebox';
import { ExecutionId } from './executions.ts';

/**
 * Retention (docs/TENANCY.md, "Retention"): what the tombstone of a record pruned under its tenant's
 * plan limit says, for its routes to answer 410 RECORD_PRUNED with the checkpoint that covered it.
 */
export const PrunedRequest = Type.Object({ id: ExecutionId }, { additionalProperties: false });
export const PrunedReply = Type.Object({
  id: ExecutionId,
  seq: Type.Integer({ minimum: 1 }),
  tenantId: Type.Union([Type.String(), Type.Null()]),
  prunedAt: Type.String({ format: 'date-time' }),
  /** The first signed checkpoint whose tree holds the record's leaf, and its root hash (base64). */
  checkpointSize: Type.Integer({ minimum: 1 }),
  checkpointRoot: Type.String(),
});
