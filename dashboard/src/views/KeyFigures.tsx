import { createSignal, For, onCleanup, Show } from 'solid-js';
import { apiOf, type ApiResult, type Listener } from '../api';
import { token } from '../auth';
import { Unknown, WithReason } from './Unknown';

/** How often the figures are read again; a failed read turns its figure UNKNOWN at once. */
const REFRESH_MS = 5000;
/** Lists without a total (the trust service's) are read up to this many; more shows as "100+". */
const LIST_LIMIT = 100;

interface Figure {
  key: string;
  label: string;
  listener: Listener;
  path: string;
  /** The scope the route needs, for the "not permitted" text. */
  scope: string;
  count: (body: Record<string, unknown>) => string;
  href: string;
}

const total = (b: Record<string, unknown>) => String(b.total);
/** The length of the answer's one list (trust lists carry no total). */
const listed = (b: Record<string, unknown>) => {
  const list = Object.values(b).find(Array.isArray) as unknown[] | undefined;
  if (list === undefined) return '?';
  return list.length >= LIST_LIMIT ? `${LIST_LIMIT}+` : String(list.length);
};

const FIGURES: Figure[] = [
  { key: 'queued', label: 'Tasks queued', listener: 'scheduler', path: '/queue?state=queued&limit=1', scope: 'queue:read', count: total, href: '#/scheduler' },
  {
    key: 'running',
    label: 'Tasks running',
    listener: 'scheduler',
    path: '/queue?state=running&limit=1',
    scope: 'queue:read',
    count: total,
    href: '#/scheduler',
  },
  { key: 'schedules', label: 'Schedules', listener: 'scheduler', path: '/schedule?limit=1', scope: 'schedule:read', count: total, href: '#/scheduler' },
  { key: 'bench', label: 'Benchmark runs', listener: 'bench', path: '/history?limit=1', scope: 'bench:read', count: total, href: '#/bench' },
  { key: 'tenants', label: 'Tenants', listener: 'token', path: '/admin/tenants?limit=1', scope: 'tenant:manage', count: total, href: '#/tenants' },
  {
    key: 'anomalies',
    label: 'Trust anomalies',
    listener: 'trust',
    path: `/anomalies?limit=${LIST_LIMIT}`,
    scope: 'trust:read',
    count: listed,
    href: '#/trust',
  },
  {
    key: 'disputes',
    label: 'Disputes pending',
    listener: 'trust',
    path: `/disputes/pending?limit=${LIST_LIMIT}`,
    scope: 'trust:read',
    count: listed,
    href: '#/trust',
  },
];

type Shown = { kind: 'value'; text: string } | { kind: 'unknown'; reason: string } | { kind: 'not-permitted'; reason: string };

function shown(f: Figure, r: ApiResult<Record<string, unknown>>): Shown {
  if (r.kind === 'ok') return { kind: 'value', text: f.count(r.value) };
  if (r.kind === 'not-permitted') return { kind: 'not-permitted', reason: `this token cannot read it (scope ${f.scope}): ${r.message}` };
  return { kind: 'unknown', reason: r.message };
}

/**
 * The suite's key figures from the other listeners, read again every few seconds. Each one is
 * current or UNKNOWN (with the reason on hover): a failed read never leaves the last value standing.
 */
export function KeyFigures() {
  const [figures, setFigures] = createSignal<Record<string, Shown>>({});
  let round = 0;
  const read = async () => {
    const mine = ++round;
    const t = token();
    if (t === null) return;
    const results = await Promise.all(FIGURES.map(async (f) => [f.key, shown(f, await apiOf<Record<string, unknown>>(f.listener, f.path))] as const));
    if (mine === round) setFigures(Object.fromEntries(results));
  };
  void read();
  const timer = setInterval(() => void read(), REFRESH_MS);
  onCleanup(() => {
    clearInterval(timer);
    round++;
  });
  return (
    <section aria-labelledby="figures-title">
      <h2 id="figures-title">Key figures</h2>
      <dl class="figures" data-testid="key-figures">
        <For each={FIGURES}>
          {(f) => {
            const v = () => figures()[f.key];
            return (
              <div data-figure={f.key} data-state={v()?.kind ?? 'loading'}>
                <dt>
                  <a href={f.href}>{f.label}</a>
                </dt>
                <dd>
                  <Show when={v()} keyed fallback={<span role="status">…</span>}>
                    {(s) => {
                      if (s.kind === 'value') return <strong>{s.text}</strong>;
                      if (s.kind === 'unknown') return <Unknown reason={s.reason} />;
                      return <WithReason class="muted" text="not permitted" reason={s.reason} />;
                    }}
                  </Show>
                </dd>
              </div>
            );
          }}
        </For>
      </dl>
    </section>
  );
}
