/**
 * The advisory score of an agent (docs/TRUST.md, "Scoring method"): additive and explainable. It
 * starts at BASELINE, each recorded event moves it by its kind's fixed weight, each breach of a
 * contract charged to the agent moves it by the breach weight, and the sum is clamped to 0..100.
 * Nothing is learned or weighted by a model: the same records always give the same score, and every
 * point of it is traceable to one record that can be appealed.
 */

export const SCORE_METHOD = 'additive-v1';
export const BASELINE = 50;
export const SCORE_MIN = 0;
export const SCORE_MAX = 100;

/** Event kinds and the points each moves an agent's score by. */
export const EVENT_WEIGHTS = Object.freeze({
  'task-succeeded': 2,
  'task-failed': -2,
  'commitment-kept': 3,
  'commitment-broken': -5,
  'policy-violation': -8,
  commendation: 1,
  complaint: -1,
  /** A fact worth recording that does not move a score. */
  note: 0,
} as const);
export type EventKind = keyof typeof EVENT_WEIGHTS;
export const EVENT_KINDS = Object.freeze(Object.keys(EVENT_WEIGHTS) as EventKind[]);

/** A breach by the agent while open, and after the agent remediated it. */
export const BREACH_WEIGHTS = Object.freeze({ open: -5, remediated: -2 });

export interface ScoredEvent {
  id: string;
  kind: EventKind;
  /** True when an appeal against it was upheld: it stays on record and stops counting. */
  appealUpheld: boolean;
}

export interface ScoredBreach {
  id: string;
  contractId: string;
  party: 'agent' | 'operator';
  state: 'open' | 'remediated';
}

export interface Contribution {
  source: 'event' | 'breach';
  id: string;
  /** Event kind, or `breach` with its state. */
  reason: string;
  delta: number;
}

export interface Exclusion {
  source: 'event' | 'breach';
  id: string;
  reason: string;
}

export interface ScoreExplanation {
  score: number;
  method: string;
  baseline: number;
  /** The sum before clamping, so a clamped score still shows every point. */
  unclamped: number;
  contributions: Contribution[];
  excluded: Exclusion[];
}

export function scoreOf(events: readonly ScoredEvent[], breaches: readonly ScoredBreach[]): ScoreExplanation {
  const contributions: Contribution[] = [];
  const excluded: Exclusion[] = [];
  for (const e of events) {
    if (e.appealUpheld) {
      excluded.push({ source: 'event', id: e.id, reason: 'an appeal against this event was upheld' });
      continue;
    }
    const delta = EVENT_WEIGHTS[e.kind];
    if (delta === 0) excluded.push({ source: 'event', id: e.id, reason: `kind ${e.kind} moves no score` });
    else contributions.push({ source: 'event', id: e.id, reason: e.kind, delta });
  }
  for (const b of breaches) {
    if (b.party === 'operator') {
      excluded.push({ source: 'breach', id: b.id, reason: 'breach by the operator: never charged to the agent' });
      continue;
    }
    contributions.push({ source: 'breach', id: b.id, reason: `breach (${b.state}) of contract ${b.contractId}`, delta: BREACH_WEIGHTS[b.state] });
  }
  const unclamped = contributions.reduce((sum, c) => sum + c.delta, BASELINE);
  const score = Math.min(SCORE_MAX, Math.max(SCORE_MIN, unclamped));
  return { score, method: SCORE_METHOD, baseline: BASELINE, unclamped, contributions, excluded };
}

export interface GateDecision {
  allowed: boolean;
  gating: 'disabled' | 'enabled';
  reason: string;
  threshold?: number;
  score?: number;
}

/**
 * Whether a score lets a subject through. With gating disabled (the default) the answer is always
 * allowed: an advisory score never denies access (spec, trust rule 4).
 */
export function gate(settings: { gating: boolean; threshold: number }, score: number | undefined): GateDecision {
  if (!settings.gating) {
    return { allowed: true, gating: 'disabled', reason: 'gating is disabled: scores are advisory and never deny access' };
  }
  const { threshold } = settings;
  if (score === undefined) {
    return {
      allowed: false,
      gating: 'enabled',
      threshold,
      reason: `gating is enabled and nothing is recorded about this agent, so it has no score to meet the threshold ${threshold}`,
    };
  }
  const allowed = score >= threshold;
  return {
    allowed,
    gating: 'enabled',
    threshold,
    score,
    reason: allowed ? `score ${score} meets the threshold ${threshold}` : `score ${score} is below the threshold ${threshold}`,
  };
}
