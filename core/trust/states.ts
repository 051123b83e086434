/**
 * The state machines of the trust service (docs/TRUST.md, "States"): each legal move written once.
 * `transition` answers the next state, or the reason the move is illegal (the edge answers 409).
 */

export const MACHINES = {
  appeal: {
    decide: { from: ['pending'], to: (d: string) => d },
  },
  dispute: {
    arbitrate: { from: ['pending'] },
    decide: { from: ['pending', 'escalated'] },
  },
  contract: {
    suspend: { from: ['active'], to: 'suspended' },
    reinstate: { from: ['suspended'], to: 'active' },
    breach: { from: ['active', 'suspended'] },
  },
  breach: {
    remediate: { from: ['open'], to: 'remediated' },
  },
} as const;

export type AppealState = 'pending' | 'upheld' | 'rejected';
export type DisputeState = 'pending' | 'resolved' | 'escalated' | 'decided';
export type ContractState = 'active' | 'suspended';
export type BreachState = 'open' | 'remediated';

type Machine = keyof typeof MACHINES;

export type Move = { ok: true } | { ok: false; message: string };

/** Whether `action` may move a `machine` record in `state`; the message names the states it needs. */
export function allowed<M extends Machine>(machine: M, action: keyof (typeof MACHINES)[M], state: string, id: string): Move {
  const rule = MACHINES[machine][action] as { from: readonly string[] };
  if (rule.from.includes(state)) return { ok: true };
  const needs = rule.from.length === 1 ? `"${rule.from[0]}"` : `one of ${rule.from.map((s) => `"${s}"`).join(', ')}`;
  return { ok: false, message: `${machine} ${id} is "${state}": ${String(action)} needs it to be ${needs}` };
}

/** Where an arbitration leaves a dispute: escalated to a human, or resolved by the consensus. */
export function afterArbitration(escalate: boolean): DisputeState {
  return escalate ? 'escalated' : 'resolved';
}
