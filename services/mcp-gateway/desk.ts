import type { Bus } from '../../bus/index.ts';
import type { ApprovalDesk } from './policy-gate.ts';
import { describeRule, type Policy } from '../../core/gateway-policy/index.ts';
import { approvalSubjects as s } from './subjects.ts';

/** The gateway's approvals desk over the bus: the approvals actor holds the rows and the counters. */
export function busDesk(bus: Bus, policy: Policy, where: string): ApprovalDesk {
  return {
    policy,
    where,
    async hold(h) {
      const r = await bus.request(s.hold, h);
      if (!r.ok) throw new Error(r.error.code);
      return r.value;
    },
    async charge(charges) {
      const r = await bus.request(s.budget, {
        charges: charges.map((c) => ({ key: c.key, by: c.by, windowStart: c.windowStart.toISOString(), calls: c.calls, rule: describeRule(c.rule) })),
      });
      if (!r.ok) throw new Error(r.error.code);
      return r.value.refusedBy;
    },
    async ran(approvalId, traceId) {
      const r = await bus.request(s.ran, { id: approvalId, traceId });
      if (!r.ok) throw new Error(r.error.code);
    },
  };
}
