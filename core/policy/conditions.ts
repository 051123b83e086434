import { parseDurationSeconds } from '../capability/index.ts';
import { isContentWord } from './lexicon.ts';
import { moneyAt, wholeNumber, type Money } from './limits.ts';
import { markUsed, phraseOf, type Clause } from './text.ts';

/**
 * Conditions a description can put on its grants: time windows, approval, and a suggested token
 * lifetime. Each matcher marks the words it used so that the grant parser does not read them again.
 */

export type Day = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
const WEEKDAYS: Day[] = ['mon', 'tue', 'wed', 'thu', 'fri'];
const WEEKEND: Day[] = ['sat', 'sun'];

export interface TimeWindowRule {
  kind: 'time-window';
  mode: 'within' | 'outside';
  days?: Day[];
  from?: string;
  to?: string;
  /** null: the description named none, so the evaluator's own zone applies (a warning says so). */
  timezone: string | null;
}

export interface ApprovalRule {
  kind: 'approval';
  approver?: string;
  above?: Money;
}

export interface ConditionMatch<R> {
  rule: R;
  at: number;
  phrase: string;
}

const WINDOW_LEAD = new Set(['only', 'during', 'within', 'in', 'inside', 'outside', 'of', 'on']);
const TIMEZONES = new Map([
  ['utc', 'UTC'],
  ['gmt', 'UTC'],
]);

/** "only during business hours", "outside working hours", "on weekdays", "between 9am and 5pm utc". */
export function matchTimeWindows(clause: Clause): ConditionMatch<TimeWindowRule>[] {
  const found: ConditionMatch<TimeWindowRule>[] = [];
  const { words } = clause;
  for (let i = 0; i < words.length; i++) {
    if (clause.used[i]) continue;
    let end = -1;
    let shape: Pick<TimeWindowRule, 'days' | 'from' | 'to'> | undefined;
    const w = words[i] ?? '';
    if (['business', 'working', 'office'].includes(w) && ['hours', 'hour'].includes(words[i + 1] ?? '')) {
      end = i + 1;
      shape = { days: WEEKDAYS, from: '09:00', to: '17:00' };
    } else if (['weekdays', 'weekday'].includes(w)) {
      end = i;
      shape = { days: WEEKDAYS };
    } else if (['weekends', 'weekend'].includes(w)) {
      end = i;
      shape = { days: WEEKEND };
    } else {
      const hours = hoursAt(clause, i);
      if (hours) {
        end = hours.end;
        shape = { from: hours.from, to: hours.to };
      }
    }
    if (shape === undefined) continue;
    let start = i;
    while (start > 0 && start > i - 3 && !clause.used[start - 1] && WINDOW_LEAD.has(words[start - 1] ?? '')) start--;
    const outside = words.slice(start, i).includes('outside');
    if (words[end + 1] === 'only' && !clause.used[end + 1]) end++;
    let timezone: string | null = null;
    const tzAt = words[end + 1] === 'in' ? end + 2 : end + 1;
    const tz = TIMEZONES.get(words[tzAt] ?? '');
    if (tz !== undefined && !clause.used[tzAt]) {
      timezone = tz;
      end = tzAt;
    }
    markUsed(clause, start, end);
    found.push({ rule: { kind: 'time-window', mode: outside ? 'outside' : 'within', ...shape, timezone }, at: start, phrase: phraseOf(clause, start, end) });
    i = end;
  }
  return mergeDaysAndHours(found);
}

/** "weekdays between 9am and 5pm" is one window, not two. */
function mergeDaysAndHours(found: ConditionMatch<TimeWindowRule>[]): ConditionMatch<TimeWindowRule>[] {
  const days = found.filter((f) => f.rule.days !== undefined && f.rule.from === undefined);
  const hours = found.filter((f) => f.rule.days === undefined);
  if (days.length !== 1 || hours.length !== 1) return found;
  const [d, h] = [days[0]!, hours[0]!];
  if (d.rule.mode !== h.rule.mode) return found;
  const [first, second] = d.at <= h.at ? [d, h] : [h, d];
  const merged: ConditionMatch<TimeWindowRule> = {
    rule: { kind: 'time-window', mode: d.rule.mode, days: d.rule.days!, from: h.rule.from!, to: h.rule.to!, timezone: h.rule.timezone ?? d.rule.timezone },
    at: first.at,
    phrase: `${first.phrase} ... ${second.phrase}`,
  };
  return [merged, ...found.filter((f) => f !== d && f !== h)].sort((a, b) => a.at - b.at);
}

/** "[between|from] 9am (and|to|until) 5pm", or "9am-5pm" after between/from: 24-hour HH:MM both ends. */
function hoursAt(clause: Clause, i: number): { from: string; to: string; end: number } | undefined {
  const { tokens, words } = clause;
  const lead = ['between', 'from'].includes(words[i] ?? '') ? 1 : 0;
  const a = tokens[i + lead];
  if (a?.kind !== 'time') return undefined;
  const sep = ['and', 'to', 'until', 'till'].includes(words[i + lead + 1] ?? '') ? 1 : 0;
  if (lead + sep === 0) return undefined;
  const b = tokens[i + lead + 1 + sep];
  if (b?.kind !== 'time') return undefined;
  const from = clockTime(a.text);
  const to = clockTime(b.text);
  if (from === undefined || to === undefined || from === to) return undefined;
  return { from, to, end: i + lead + 1 + sep };
}

function clockTime(text: string): string | undefined {
  const m = /^(\d{1,2})(?::(\d{2}))? ?(am|pm)?$/.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? '0');
  if (minute > 59) return undefined;
  if (m[3] !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (m[3] === 'pm' ? 12 : 0);
  } else if (hour > 23) {
    return undefined;
  }
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

const APPROVAL_LEAD = new Set([
  'requires',
  'require',
  'required',
  'requiring',
  'need',
  'needs',
  'needing',
  'needed',
  'with',
  'after',
  'only',
  'subject',
  'to',
  'prior',
  'explicit',
  'manual',
  'a',
  'an',
  'the',
  'must',
  'get',
  'gets',
  'obtain',
  'first',
  'written',
  'be',
  'is',
  'are',
  'been',
  'their',
  'its',
  'human',
  'manager',
  'supervisor',
  'admin',
  'administrator',
  'owner',
  'finance',
  'security',
  'legal',
  'operator',
  'reviewer',
  'no',
  'without',
  'not',
  "doesn't",
  "don't",
]);
const APPROVERS = new Set(['human', 'manager', 'supervisor', 'admin', 'administrator', 'owner', 'finance', 'security', 'legal', 'operator', 'reviewer']);
const WAIVED = new Set(['no', 'without', 'not', "doesn't", "don't"]);

/**
 * "requires approval", "with manager approval", "must be approved by finance", "payments over $100
 * need approval". "no approval needed" and "without approval" waive it: matched, no rule.
 */
export function matchApprovals(clause: Clause): Array<ConditionMatch<ApprovalRule | null>> {
  const found: Array<ConditionMatch<ApprovalRule | null>> = [];
  const { words } = clause;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    const isApproval =
      w === 'approval' ||
      w === 'approvals' ||
      (w === 'approved' && (['be', 'is', 'are', 'been', 'being', 'get'].includes(words[i - 1] ?? '') || words[i + 1] === 'by'));
    if (!isApproval || clause.used[i]) continue;
    let start = i;
    while (start > 0 && !clause.used[start - 1] && APPROVAL_LEAD.has(words[start - 1] ?? '')) start--;
    const lead = words.slice(start, i);
    let end = i;
    let approver = lead.find((x) => APPROVERS.has(x));
    if (['by', 'from'].includes(words[i + 1] ?? '')) {
      let k = i + 2;
      while (['a', 'an', 'the', 'their', 'its'].includes(words[k] ?? '')) k++;
      if (isContentWord(words[k] ?? '')) {
        approver = words[k];
        end = k;
      }
    }
    const after = words.slice(end + 1, end + 3);
    const waivedAfter = after[0] === 'not' && ['required', 'needed', 'necessary'].includes(after[1] ?? '');
    if (waivedAfter) end += 2;
    else if (['needed', 'required'].includes(after[0] ?? '')) end += 1;
    const waived = waivedAfter || lead.some((x) => WAIVED.has(x));
    markUsed(clause, start, end);
    const above = waived ? undefined : thresholdIn(clause);
    const rule: ApprovalRule | null = waived ? null : { kind: 'approval', ...(approver !== undefined ? { approver } : {}), ...(above ? { above } : {}) };
    found.push({ rule, at: start, phrase: phraseOf(clause, start, end) });
    i = end;
  }
  return found;
}

/** "over $100", "above 500 eur", "more than $1,000" anywhere in the clause: when approval applies. */
function thresholdIn(clause: Clause): Money | undefined {
  const { words, tokens } = clause;
  for (let k = 0; k < words.length; k++) {
    if (clause.used[k]) continue;
    const lead = ['over', 'above', 'exceeding'].includes(words[k] ?? '') ? 1 : ['more', 'greater'].includes(words[k] ?? '') && words[k + 1] === 'than' ? 2 : 0;
    if (lead === 0) continue;
    const money = moneyAt(tokens, k + lead);
    if (!money) continue;
    markUsed(clause, k, k + lead + money.length - 1);
    return money.money;
  }
  return undefined;
}

const EXPIRY_LEADS: string[][] = [['expires', 'in'], ['expires', 'after'], ['expire', 'in'], ['expire', 'after'], ['valid', 'for'], ['lasting'], ['for']];
const LIFETIME_UNITS = new Map<string, [string, number]>([
  ...['second', 'seconds', 'sec', 'secs'].map((u): [string, [string, number]] => [u, ['s', 1]]),
  ...['minute', 'minutes', 'min', 'mins'].map((u): [string, [string, number]] => [u, ['m', 1]]),
  ...['hour', 'hours', 'hr', 'hrs'].map((u): [string, [string, number]] => [u, ['h', 1]]),
  ...['day', 'days'].map((u): [string, [string, number]] => [u, ['d', 1]]),
  ...['week', 'weeks'].map((u): [string, [string, number]] => [u, ['d', 7]]),
]);

export interface ExpiryMatch {
  /** A duration POST /auth/token accepts; undefined when the one asked for is not (too long, zero). */
  expiresIn: string | undefined;
  asked: string;
  at: number;
  phrase: string;
}

/** "for 2 hours", "valid for a day", "expires in 15 minutes", "for the next 3 days". */
export function matchExpiry(clause: Clause): ExpiryMatch[] {
  const found: ExpiryMatch[] = [];
  const { words, tokens } = clause;
  for (let i = 0; i < words.length; i++) {
    const lead = EXPIRY_LEADS.find((l) => l.every((w, k) => words[i + k] === w && !clause.used[i + k]));
    if (!lead) continue;
    let k = i + lead.length;
    while (['the', 'next', 'following'].includes(words[k] ?? '')) k++;
    const n = ['a', 'an', 'one'].includes(words[k] ?? '') ? 1 : wholeNumber(tokens[k]);
    const unit = LIFETIME_UNITS.get(words[k + 1] ?? '');
    if (n === undefined || unit === undefined) continue;
    const [suffix, factor] = unit;
    const asked = `${n * factor}${suffix}`;
    const ok = parseDurationSeconds(asked) !== undefined;
    markUsed(clause, i, k + 1);
    found.push({ expiresIn: ok ? asked : undefined, asked, at: i, phrase: phraseOf(clause, i, k + 1) });
    i = k + 1;
  }
  return found;
}
