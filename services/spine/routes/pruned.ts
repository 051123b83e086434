import type { FastifyReply } from 'fastify';
import type { Bus, ErrorData } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { sendError } from '../../../edge-http/index.ts';

/**
 * A record's route found no record: 410 RECORD_PRUNED when it was pruned under retention (docs/
 * TENANCY.md, "Retention"), naming the signed checkpoint that covered it, else the 404 it had. A
 * tenant's token learns this only of its own records: another's pruned record is "not found", as
 * another's kept record is.
 */
export async function answerNotFound(bus: Bus, reply: FastifyReply, id: string, tenantId: string | undefined, notFound: ErrorData): Promise<FastifyReply> {
  if (notFound.code !== 'NOT_FOUND') return sendError(reply, notFound);
  const p = await bus.request(subjects.executionsPruned, { id });
  if (!p.ok) return sendError(reply, p.error.code === 'NOT_FOUND' ? notFound : p.error);
  if (tenantId !== undefined && p.value.tenantId !== tenantId) return sendError(reply, notFound);
  const { seq, checkpointSize: size } = p.value;
  return sendError(reply, {
    code: 'RECORD_PRUNED',
    message:
      `execution ${id} (seq ${seq}) was pruned under its tenant's retention limit at ${p.value.prunedAt}: its content is gone; ` +
      `its leaf ${seq - 1} stays in the log, covered by the signed checkpoint of tree size ${size} (root ${p.value.checkpointRoot}), ` +
      `which GET /executions/${id}/proof?size=${size} answers with its inclusion proof`,
  });
}
