import { Type, type Static } from 'typebox';
import { scopeGrants } from '../../core/capability/index.ts';
import type { Authority, EdgeApp, Principal } from '../../edge-http/index.ts';
import { answer, operation } from '../../edge-http/index.ts';
import { HOUR_MINUTES, MINUTE_MS } from './minute-buckets.ts';
import { SERIES, type SeriesName, type TrendRecorder } from './trends.ts';

/** Who may read each series: as the socket filters its events (live.ts), by scope and tenant. */
interface SeriesRule {
  label: string;
  source: string;
  scopes: readonly string[] | 'any';
  noTenant: boolean;
}

export const SERIES_RULES: Readonly<Record<SeriesName, SeriesRule>> = {
  appends: {
    label: 'Appends to the execution chain',
    source: 'suite.executions.appended events on the bus, counted as they arrive',
    scopes: ['execution:read'],
    noTenant: true,
  },
  allow: {
    label: 'Decisions: allow',
    source: 'the audit trail: entries with result allow whose time falls in the minute',
    scopes: ['audit:read'],
    noTenant: true,
  },
  deny: {
    label: 'Decisions: deny',
    source: 'the audit trail: entries with result deny whose time falls in the minute',
    scopes: ['audit:read'],
    noTenant: true,
  },
  http4xx: {
    label: '4xx answers',
    source: 'http_requests_total of every listener (its own series), increase between scrapes every 10 s',
    scopes: 'any',
    noTenant: false,
  },
  http5xx: {
    label: '5xx answers',
    source: 'http_requests_total of every listener (its own series), increase between scrapes every 10 s',
    scopes: 'any',
    noTenant: false,
  },
  queueDepth: {
    label: 'Tasks waiting (peak)',
    source: "scheduler_queue_depth (queued and retrying, every tenant) of the scheduler listener, highest of the minute's scrapes",
    scopes: ['queue:read', 'schedule:read', 'runtime:read'],
    noTenant: true,
  },
  auditBacklog: {
    label: 'Audit backlog (peak)',
    source: "entries the dashboard process accepted and has not yet committed to the audit chain, highest of the minute's samples",
    scopes: 'any',
    noTenant: false,
  },
};

const Point = Type.Union([Type.Number(), Type.Null()]);
const Series = Type.Object({
  name: Type.Union([
    Type.Literal('appends'),
    Type.Literal('allow'),
    Type.Literal('deny'),
    Type.Literal('http4xx'),
    Type.Literal('http5xx'),
    Type.Literal('queueDepth'),
    Type.Literal('auditBacklog'),
  ]),
  label: Type.String(),
  source: Type.String({ description: 'what each point counts, and where it is read' }),
  permitted: Type.Boolean({ description: 'false: the token may not read this series (no points are sent)' }),
  reason: Type.Optional(Type.String({ description: 'why not permitted' })),
  points: Type.Array(Point, { description: 'one per minute, oldest first, aligned with `minutes`; null: nothing measured that minute' }),
});
export const HistoryReply = Type.Object({
  minutes: Type.Array(Type.String({ format: 'date-time' }), {
    description: 'the start of each minute of the last hour, oldest first; the last is the current minute',
  }),
  lastSeq: Type.Integer({ description: 'the highest chain seq counted in `appends`: a live append with a higher seq is not counted yet' }),
  series: Type.Array(Series),
});
export type HistoryReplyValue = Static<typeof HistoryReply>;

const ANY_TOKEN: Authority = { kind: 'token', admin: true };

/** `GET /dashboard/history`: the overview's trends for the last hour, each series as the caller may read it. */
export function historyRoute(app: EdgeApp, trends: TrendRecorder): void {
  app.get(
    '/dashboard/history',
    {
      config: { authority: ANY_TOKEN },
      schema: {
        ...operation('dashboard', 'getDashboardHistory', 'Per-minute trends of the last hour, each series as the caller may read it'),
        response: { 200: answer(HistoryReply, 'The trends') },
      },
    },
    async (request) => historyFor(request.principal, trends),
  );
}

export function historyFor(p: Principal, trends: TrendRecorder): HistoryReplyValue {
  const current = Math.floor(Date.now() / MINUTE_MS);
  const minutes = Array.from({ length: HOUR_MINUTES }, (_, i) => new Date((current - HOUR_MINUTES + 1 + i) * MINUTE_MS).toISOString());
  const series = SERIES.map((name) => {
    const rule = SERIES_RULES[name];
    const why = refusal(p, rule);
    const base = { name, label: rule.label, source: rule.source };
    return why === undefined ? { ...base, permitted: true, points: trends.points(name) } : { ...base, permitted: false, reason: why, points: [] };
  });
  return { minutes, lastSeq: trends.lastSeq, series };
}

function refusal(p: Principal, rule: SeriesRule): string | undefined {
  if (rule.noTenant && p.tenantId !== undefined) return 'it counts every tenant: only a token issued under no tenant reads it';
  if (rule.scopes !== 'any' && !rule.scopes.some((s) => scopeGrants(p.scope, s))) return `the token does not grant ${rule.scopes.join(' or ')}`;
  return undefined;
}
