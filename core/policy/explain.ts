import { GENERATOR } from './lexicon.ts';
import type { GeneratedPolicy, PolicyRule } from './types.ts';
import type { Money } from './limits.ts';

/** The explanation in words, built only from the generated fields (same input, same sentence). */
export function explain(p: Omit<GeneratedPolicy, 'explanation'>): string {
  const parts: string[] = [];
  parts.push(p.scopes.length === 0 ? 'Grants no scope.' : `Grants ${p.scopes.length} scope${p.scopes.length === 1 ? '' : 's'}: ${p.scopes.join(', ')}.`);
  const rules = p.policy.rules;
  if (rules.length > 0) {
    const described = rules.map(
      (r) =>
        `${r.id} ${describeRule(r)}${r.kind === 'deny' && r.appliesTo.length === 0 ? '' : ` (${r.appliesTo.length > 0 ? r.appliesTo.join(', ') : 'no scope'})`}`,
    );
    parts.push(`${rules.length} governance rule${rules.length === 1 ? '' : 's'}: ${described.join('; ')}.`);
  }
  if (p.policy.expiresIn !== undefined) parts.push(`Suggested token lifetime: ${p.policy.expiresIn}.`);
  if (p.unmatched.length > 0) parts.push(`${p.unmatched.length} phrase${p.unmatched.length === 1 ? '' : 's'} not understood.`);
  if (p.warnings.length > 0) parts.push(`${p.warnings.length} warning${p.warnings.length === 1 ? '' : 's'}.`);
  parts.push(`Derived by fixed rules (${GENERATOR}), not by a model: review before issuing.`);
  return parts.join(' ');
}

function money(m: Money): string {
  return `${(m.amount / 100).toFixed(2)} ${m.currency}`;
}

export function describeRule(r: PolicyRule): string {
  switch (r.kind) {
    case 'rate-limit':
      return `at most ${r.max}${r.of !== undefined ? ` ${r.of}` : ''} per ${r.per}`;
    case 'count-limit':
      return `at most ${r.max}${r.of !== undefined ? ` ${r.of}` : ''}`;
    case 'amount-limit':
      return `at most ${money(r)}${r.per !== undefined ? ` per ${r.per}` : ''}`;
    case 'approval':
      return `needs ${r.approver !== undefined ? `${r.approver} ` : ''}approval${r.above !== undefined ? ` above ${money(r.above)}` : ''}`;
    case 'deny':
      return `denies ${r.scopes.join(', ')}`;
    case 'time-window': {
      const days = r.days !== undefined ? ` on ${r.days.join(', ')}` : '';
      const hours = r.from !== undefined ? ` from ${r.from} to ${r.to ?? ''}` : '';
      const zone = r.timezone ?? 'local time';
      return `${r.mode === 'outside' ? 'only outside' : 'only'}${days}${hours} (${zone})`;
    }
  }
}
