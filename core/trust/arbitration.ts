/**
 * Arbitration of participant opinions (spec, trust rule 6): opinions are weighed by confidence, and
 * agreement among participants of the same model family is discounted, since models of one family
 * share training and failure modes and their agreement is weaker evidence than independent voices.
 * Within a position, the first opinion of a family (highest confidence, then participant name)
 * counts fully and each further one counts SAME_FAMILY_WEIGHT of its confidence. A position leads
 * with a consensus when its counted share reaches CONSENSUS_SHARE. An irreversible question is
 * always escalated to a human, whatever the consensus; so is one without consensus.
 */

export const ARBITRATION_METHOD = 'family-discounted-v1';
export const SAME_FAMILY_WEIGHT = 0.25;
export const CONSENSUS_SHARE = 2 / 3;

export interface Opinion {
  participant: string;
  /** e.g. `gpt-4`, `claude-3`, `human`; absent: counted as independent and named in `unknownFamily`. */
  modelFamily?: string;
  position: string;
  /** 0..1; default 1. */
  confidence?: number;
  rationale?: string;
}

export interface CountedOpinion {
  participant: string;
  modelFamily: string | null;
  confidence: number;
  counted: number;
}

export interface PositionTally {
  position: string;
  opinions: CountedOpinion[];
  rawWeight: number;
  countedWeight: number;
  /** rawWeight - countedWeight: what same-family agreement lost. */
  discount: number;
  share: number;
}

export interface Evaluation {
  method: string;
  positions: PositionTally[];
  outcome: 'consensus' | 'no-consensus';
  leading: string | null;
  leadingShare: number;
  escalate: boolean;
  reason: string;
  unknownFamily: string[];
  rules: { sameFamilyWeight: number; consensusShare: number };
}

/** Participants named more than once (each participant gives one opinion). */
export function duplicateParticipants(opinions: readonly Opinion[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const o of opinions) (seen.has(o.participant) ? dup : seen).add(o.participant);
  return [...dup].sort();
}

const normalise = (position: string) => position.trim().toLowerCase().replace(/\s+/g, ' ');

export function evaluate(opinions: readonly Opinion[], irreversible: boolean): Evaluation {
  const byPosition = new Map<string, Opinion[]>();
  for (const o of opinions) {
    const key = normalise(o.position);
    byPosition.set(key, [...(byPosition.get(key) ?? []), o]);
  }
  const positions: PositionTally[] = [];
  for (const [position, group] of byPosition) {
    const ordered = [...group].sort((a, b) => (b.confidence ?? 1) - (a.confidence ?? 1) || (a.participant < b.participant ? -1 : 1));
    const seenFamilies = new Set<string>();
    const counted: CountedOpinion[] = ordered.map((o) => {
      const confidence = o.confidence ?? 1;
      const family = o.modelFamily === undefined ? null : o.modelFamily.trim().toLowerCase();
      const repeat = family !== null && seenFamilies.has(family);
      if (family !== null) seenFamilies.add(family);
      return { participant: o.participant, modelFamily: family, confidence, counted: round(repeat ? confidence * SAME_FAMILY_WEIGHT : confidence) };
    });
    const rawWeight = round(counted.reduce((s, c) => s + c.confidence, 0));
    const countedWeight = round(counted.reduce((s, c) => s + c.counted, 0));
    positions.push({ position, opinions: counted, rawWeight, countedWeight, discount: round(rawWeight - countedWeight), share: 0 });
  }
  const total = positions.reduce((s, p) => s + p.countedWeight, 0);
  for (const p of positions) p.share = total > 0 ? round(p.countedWeight / total) : 0;
  positions.sort((a, b) => b.countedWeight - a.countedWeight || (a.position < b.position ? -1 : 1));

  const top = positions[0];
  const tied = positions.length > 1 && positions[1]!.countedWeight === top?.countedWeight;
  const consensus = top !== undefined && !tied && top.share >= CONSENSUS_SHARE;
  const unknownFamily = opinions
    .filter((o) => o.modelFamily === undefined)
    .map((o) => o.participant)
    .sort();
  const reason = irreversible
    ? 'the question is irreversible: it is escalated to a human, whatever the opinions say'
    : consensus
      ? `"${top!.position}" holds ${pct(top!.share)} of the counted weight (at least ${pct(CONSENSUS_SHARE)} needed)`
      : `no position holds ${pct(CONSENSUS_SHARE)} of the counted weight: a human decides`;
  return {
    method: ARBITRATION_METHOD,
    positions,
    outcome: consensus ? 'consensus' : 'no-consensus',
    leading: consensus ? top!.position : null,
    leadingShare: top?.share ?? 0,
    escalate: irreversible || !consensus,
    reason,
    unknownFamily,
    rules: { sameFamilyWeight: SAME_FAMILY_WEIGHT, consensusShare: round(CONSENSUS_SHARE) },
  };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
const pct = (n: number) => `${Math.round(n * 100)}%`;
