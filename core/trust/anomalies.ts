/**
 * Structural anomaly rules over agent-to-agent call chains (spec, trust rule 9), applied
 * incrementally: each rule looks at one new interaction or observation and what is already known
 * about its place in the chain (its path of agents from the root, its depth, its parent's fan-out),
 * so detection costs the same at the 100,000th interaction as at the first. Stalls are a matter of
 * time passing and are read from each chain's last activity instead (see `isStalled`).
 */

export interface AnomalyBounds {
  maxDepth: number;
  maxFanOut: number;
  stallMs: number;
}

export type AnomalyKind = 'cycle' | 'runaway-depth' | 'runaway-fanout' | 'stall' | 'disagreement';

export interface Finding {
  kind: AnomalyKind;
  /** One anomaly per key: a later record adds to its evidence instead of repeating it. */
  key: string;
  detail: string;
}

export interface Placed {
  id: string;
  chainId: string;
  parentId: string | null;
  caller: string;
  callee: string;
}

/** The path of agents from the chain's root to this interaction's callee, and its depth (root = 1). */
export function placeOf(i: Placed, parent: { path: readonly string[]; depth: number } | null): { path: string[]; depth: number } {
  if (parent === null) return { path: [i.caller, i.callee], depth: 1 };
  const last = parent.path[parent.path.length - 1];
  const path = last === i.caller ? [...parent.path, i.callee] : [...parent.path, i.caller, i.callee];
  return { path, depth: parent.depth + 1 };
}

/** What one new interaction reveals: a cycle on its path, a chain too deep, a parent with too many children. */
export function findingsOnInsert(i: Placed, place: { path: readonly string[]; depth: number }, parentChildren: number, bounds: AnomalyBounds): Finding[] {
  const out: Finding[] = [];
  const before = place.path.slice(0, -1);
  if (before.includes(i.callee)) {
    out.push({ kind: 'cycle', key: `cycle:${i.id}`, detail: `${i.callee} is called again within its own call path (${place.path.join(' -> ')})` });
  }
  if (place.depth > bounds.maxDepth) {
    out.push({ kind: 'runaway-depth', key: `runaway-depth:${i.chainId}`, detail: `chain ${i.chainId} is deeper than ${bounds.maxDepth} calls` });
  }
  if (i.parentId !== null && parentChildren > bounds.maxFanOut) {
    out.push({ kind: 'runaway-fanout', key: `runaway-fanout:${i.parentId}`, detail: `interaction ${i.parentId} made more than ${bounds.maxFanOut} calls` });
  }
  return out;
}

/** Observers of one interaction who disagree on its outcome (opinions, compared; none is taken as true). */
export function disagreementOf(interactionId: string, opinions: ReadonlyArray<{ observer: string; outcome: string }>): Finding | null {
  const outcomes = [...new Set(opinions.map((o) => o.outcome))].sort();
  if (outcomes.length < 2) return null;
  return {
    kind: 'disagreement',
    key: `disagreement:${interactionId}`,
    detail: `observers of ${interactionId} disagree on its outcome: ${outcomes
      .map(
        (o) =>
          `${o} (${opinions
            .filter((x) => x.outcome === o)
            .map((x) => x.observer)
            .sort()
            .join(', ')})`,
      )
      .join(' vs ')}`,
  };
}

/** A chain is stalled when its newest interaction is still pending and nothing happened in it for the window. */
export function isStalled(chain: { lastOutcome: string; lastActivityMs: number }, nowMs: number, bounds: Pick<AnomalyBounds, 'stallMs'>): boolean {
  return chain.lastOutcome === 'pending' && nowMs - chain.lastActivityMs > bounds.stallMs;
}
