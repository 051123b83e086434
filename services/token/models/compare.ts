import type { Drift, Fingerprint, ModelPin } from '../../../storage/index.ts';

export interface Comparison {
  state: 'MATCHED' | 'FAILED';
  drift: Drift[];
  finding: string;
}

const FIELDS = ['provider', 'model', 'version'] as const satisfies ReadonlyArray<keyof Fingerprint>;

/**
 * Compare an observed fingerprint with the approved baseline, field by field and literally (no
 * case folding, no aliasing: `gpt-4o` and `GPT-4o` differ). The result records a difference between
 * two claims; it is not a judgement of the model (spec, core rule 4). The finding is built from the
 * fields alone, so the same inputs always give the same words (core rule 6).
 */
export function compareFingerprint(pin: ModelPin, observed: Fingerprint): Comparison {
  const drift: Drift[] = FIELDS.filter((field) => pin.fingerprint[field] !== observed[field]).map((field) => ({
    field,
    approved: pin.fingerprint[field],
    observed: observed[field],
  }));
  const baseline = `baseline ${pin.baseline} of "${pin.name}", approved by ${pin.approvedBy} on ${pin.approvedAt.slice(0, 10)}`;
  const caveat = 'This records what was claimed and how it compares; it does not judge the model.';
  if (drift.length === 0) {
    const seen = FIELDS.map((f) => `${f} "${observed[f]}"`).join(', ');
    return { state: 'MATCHED', drift, finding: `The observed fingerprint (${seen}) matches ${baseline}. ${caveat}` };
  }
  const fields = joinWords(drift.map((d) => d.field));
  const details = drift.map((d) => `${d.field} approved "${d.approved}", observed "${d.observed}"`).join('; ');
  return { state: 'FAILED', drift, finding: `The observed fingerprint differs from ${baseline}, in ${fields}: ${details}. ${caveat}` };
}

function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
