import { Type } from 'typebox';
import { CallerSchema, requestSubject } from '../../bus/index.ts';
import { ApprovalFilter, ApprovalList, ApprovalSchema, BudgetAnswer, BudgetRequest, DecideRequest, HoldAnswer, HoldRequest, RanRequest } from './schemas.ts';

/**
 * The approvals desk's subjects (`actor:approvals`, queue `approvals`): the gateway holds calls and
 * charges budgets through them (an edge never touches storage), the routes list and decide.
 */
export const approvalSubjects = {
  hold: requestSubject('suite.approvals.hold', HoldRequest, HoldAnswer),
  list: requestSubject(
    'suite.approvals.list',
    Type.Object({ ...ApprovalFilter.properties, caller: Type.Optional(Type.String()), by: CallerSchema }),
    ApprovalList,
  ),
  decide: requestSubject('suite.approvals.decide', DecideRequest, ApprovalSchema),
  budget: requestSubject('suite.approvals.budget', BudgetRequest, BudgetAnswer),
  /** The approved call ran: its record, so the approval links to it. */
  ran: requestSubject('suite.approvals.ran', RanRequest, Type.Object({ ok: Type.Boolean() })),
} as const;
