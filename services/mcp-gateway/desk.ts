import { subjects, type Bus } from '../../bus/index.ts';
import type { ApprovalDesk } from './policy-gate.ts';
import type { PolicySource } from './policy-source.ts';
import { describeRule } from '../../core/gateway-policy/index.ts';
import { approvalSubjects as s } from './subjects.ts';

/** The gateway's approvals desk over the bus: the approvals actor holds the rows and the counters. */
export function busDesk(bus: Bus, source: PolicySource, where: string): ApprovalDesk {
  // One subscription for every call held open in this process, opened at the first.
  const waiters = new Map<string, Set<() => void>>();
  let subscribed = false;
  const subscribe = () => {
    if (subscribed) return;
    subscribed = true;
    // The desk's public change event (published after the decision is signed) wakes the waiters.
    bus.subscribe(subjects.approvalsChanged, ({ data }) => {
      if (data.what !== 'decided') return;
      for (const wake of waiters.get(data.id) ?? []) wake();
    });
  };
  return {
    source,
    where,
    async hold(h) {
      const r = await bus.request(s.hold, h);
      if (!r.ok) throw new Error(r.error.code);
      return r.value;
    },
    decided(id, ms) {
      subscribe();
      return new Promise<void>((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, ms);
        set.add(done);
      });
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
