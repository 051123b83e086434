import type { CommonQueryMethods } from 'slonik';
import type { RequestOf } from '../../../../bus/index.ts';
import type { subjects } from '../../../../bus/index.ts';
import type { ChainResult } from '../verify.ts';
import {
  conditionCounts,
  costTotals,
  countsBy,
  executionTotals,
  subjectBreakdown,
  subjectsPage,
  type ExecutionFilter,
  type SubjectDimension,
} from '../../../../storage/index.ts';
import { CONDITION_RULES, type ConditionState } from '../../../../core/assessment/index.ts';
import { encodeCursor, subjectCursor } from './cursor.ts';
import { conditionTable, countIn, unknownGroups, UNKNOWNS_MEANING, unverifiable } from '../../../../core/assessment/index.ts';

/** Aggregate reads: every figure is computed in SQL; these only shape the answers. */

const tenantOf = (d: { tenantId?: string | undefined }): ExecutionFilter => (d.tenantId !== undefined ? { tenantId: d.tenantId } : {});

/** Breakdowns of GET /executions/stats list at most this many values (most frequent first). */
const TOP_VALUES = 100;

export async function statsOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsStats>, verifyChain: () => Promise<ChainResult>) {
  const f = tenantOf(d);
  // The chain check runs while the counts are taken; it is shared with any verification in flight.
  const chain = verifyChain();
  chain.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled meanwhile
  const totals = await executionTotals(db, f);
  const byOutcome = await countsBy(db, 'outcome', f, TOP_VALUES);
  const byModule = await countsBy(db, 'module', f, TOP_VALUES);
  const states = await conditionCounts(db, CONDITION_RULES, f);
  const { mode: _mode, ...verification } = await chain;
  return {
    records: {
      total: totals.records,
      subjects: totals.subjects,
      priced: totals.priced,
      unpriced: totals.records - totals.priced,
      withoutOutput: totals.withoutOutput,
      firstTimestamp: totals.firstTimestamp,
      lastTimestamp: totals.lastTimestamp,
    },
    byOutcome: { counts: byOutcome.counts.map((c) => ({ outcome: c.value, count: c.count })), distinct: byOutcome.distinct },
    byModule: { counts: byModule.counts.map((c) => ({ module: c.value, count: c.count })), distinct: byModule.distinct },
    conditions: conditionTable(states),
    chain: { mode: 'chain' as const, ...verification },
    unverifiable: unverifiable({
      identityNotDemonstrated: countIn(states, 'Identity', ['UNKNOWN', 'FAILED']),
      unpriced: totals.records - totals.priced,
    }),
  };
}

export async function unknownsOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsUnknowns>) {
  const f = tenantOf(d);
  const totals = await executionTotals(db, f);
  const states = await conditionCounts(db, CONDITION_RULES, f);
  return {
    records: totals.records,
    unknowns: unknownGroups(states, { unpriced: totals.records - totals.priced, withoutOutput: totals.withoutOutput }),
    meaning: UNKNOWNS_MEANING,
  };
}

function subjectFilter(d: RequestOf<typeof subjects.executionsAuthority>): ExecutionFilter {
  const f = tenantOf(d);
  if (d.subject !== undefined) f.subject = d.subject;
  if (d.from !== undefined) f.from = d.from;
  if (d.to !== undefined) f.to = d.to;
  return f;
}

/** Each list of a subject holds at most this many entries, most used first (`truncated` says when cut). */
const PER_SUBJECT = 100;

export async function authorityOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsAuthority>) {
  const f = subjectFilter(d);
  const after = subjectCursor('authority', d.cursor);
  const rows = await subjectsPage(db, { ...f, limit: d.limit + 1, ...(after !== undefined ? { afterSubject: after } : {}) });
  const page = rows.slice(0, d.limit);
  const names = page.map((s) => s.subject);
  const breakdown = async (dimension: SubjectDimension) => {
    const found = await subjectBreakdown(db, CONDITION_RULES, dimension, names, f, PER_SUBJECT + 1);
    return (subject: string) => found.filter((b) => b.subject === subject);
  };
  const scopes = await breakdown('scope');
  const modules = await breakdown('module');
  const actions = await breakdown('action');
  const outcomes = await breakdown('outcome');
  const capability = await breakdown('capability');
  const subjects = page.map((s) => {
    const [sc, mo, ac, ou] = [scopes(s.subject), modules(s.subject), actions(s.subject), outcomes(s.subject)];
    return {
      subject: s.subject,
      records: s.records,
      firstSeen: s.firstSeen,
      lastSeen: s.lastSeen,
      scopes: sc.slice(0, PER_SUBJECT).map((b) => ({ scope: b.value, count: b.count })),
      modules: mo.slice(0, PER_SUBJECT).map((b) => ({ module: b.value, count: b.count })),
      actions: ac.slice(0, PER_SUBJECT).map((b) => ({ module: b.module ?? '', action: b.value, count: b.count })),
      outcomes: ou.slice(0, PER_SUBJECT).map((b) => ({ outcome: b.value, count: b.count })),
      // At most four states: never cut.
      capability: capability(s.subject).map((b) => ({ state: b.value as ConditionState, count: b.count })),
      truncated: [sc, mo, ac, ou].some((l) => l.length > PER_SUBJECT),
    };
  });
  const nextCursor = rows.length > page.length ? encodeCursor('authority', names[names.length - 1] as string) : null;
  return { subjects, nextCursor };
}

export const COST_MEANING =
  'priced: records carrying a cost claim (an amount in minor units of one currency, with the source of the figure); ' +
  'unpriced: records without one. Totals add the claimed amounts per currency, never across currencies; they are what recorders ' +
  'claimed, not what the suite measured (it measures no cost).';

/** A sum of minor units: a JSON number while it is exact, else its decimal digits. */
function amountOf(digits: string): number | string {
  const n = Number(digits);
  return Number.isSafeInteger(n) && String(n) === digits ? n : digits;
}

export async function costOf(db: CommonQueryMethods, d: RequestOf<typeof subjects.executionsCost>) {
  const f = subjectFilter(d);
  const after = subjectCursor('cost', d.cursor);
  const totals = await executionTotals(db, f);
  const sums = await costTotals(db, f);
  const rows = await subjectsPage(db, { ...f, limit: d.limit + 1, ...(after !== undefined ? { afterSubject: after } : {}) });
  const page = rows.slice(0, d.limit);
  const perSubject = await costTotals(
    db,
    f,
    page.map((s) => s.subject),
  );
  return {
    // Coverage first (spec, "Cost summary response"): how much of the chain the totals speak for.
    coverage: { records: totals.records, priced: totals.priced, unpriced: totals.records - totals.priced, meaning: COST_MEANING },
    totals: sums.map((s) => ({ currency: s.currency, amount: amountOf(s.amount) })),
    subjects: page.map((s) => ({
      subject: s.subject,
      priced: s.priced,
      unpriced: s.records - s.priced,
      totals: perSubject.filter((t) => t.subject === s.subject).map((t) => ({ currency: t.currency, amount: amountOf(t.amount) })),
    })),
    nextCursor: rows.length > page.length ? encodeCursor('cost', page[page.length - 1]!.subject) : null,
  };
}
