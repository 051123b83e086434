import { createSignal, For, onCleanup, Show } from 'solid-js';
import { api } from '../../api';
import { token } from '../../auth';
import { onTrace } from '../../live';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { TrendChart, type TrendLine } from './TrendChart';
import './trends.css';

interface Series {
  name: string;
  label: string;
  source: string;
  permitted: boolean;
  reason?: string;
  points: (number | null)[];
}
interface History {
  minutes: string[];
  lastSeq: number;
  series: Series[];
}

/** How often the hour is read again; appends also move the latest minute live, from the socket. */
const REFRESH_MS = 15_000;

/** The panels: which series each draws, in which colour and dash (so they differ without colour too). */
const PANELS: { key: string; title: string; lines: { name: string; stroke: string; dash?: number[] }[] }[] = [
  { key: 'appends', title: 'Chain appends per minute', lines: [{ name: 'appends', stroke: '#1f5fbf' }] },
  {
    key: 'decisions',
    title: 'Decisions per minute',
    lines: [
      { name: 'allow', stroke: '#17693a' },
      { name: 'deny', stroke: '#b3261e', dash: [6, 4] },
    ],
  },
  {
    key: 'errors',
    title: 'Error answers per minute',
    lines: [
      { name: 'http4xx', stroke: '#9a5b00' },
      { name: 'http5xx', stroke: '#b3261e', dash: [6, 4] },
    ],
  },
  { key: 'queue', title: 'Tasks waiting', lines: [{ name: 'queueDepth', stroke: '#5b3fa0' }] },
  { key: 'backlog', title: 'Audit backlog', lines: [{ name: 'auditBacklog', stroke: '#1b1f24' }] },
];

/**
 * The last hour, a point a minute (`GET /dashboard/history`, kept by the dashboard service from
 * what it measures; docs/DASHBOARD.md, "Trends"). A minute nothing measured is a gap, never 0; a
 * series the token may not read says so. Appends announced by the socket after the read are added
 * to their minute at once.
 */
export function Trends() {
  const [history, reread] = createRead(token, () => api<History>('/dashboard/history'), { everyMs: REFRESH_MS });
  const [live, setLive] = createSignal<{ seq: number; minute: number }[]>([]);
  let askedFor: number | undefined;
  onCleanup(
    onTrace((t) => {
      const minute = Math.floor(Date.now() / 60_000) * 60;
      setLive((l) => [...l, { seq: t.seq, minute }].slice(-10_000));
      // An append in a minute the last read does not hold yet (the hour moved on since): read the
      // hour again now, so the new minute exists to count it, rather than at the next refresh.
      // Once per new minute: a burst of appends then asks once.
      const h = history();
      if (h?.kind === 'ok' && minute !== askedFor && !h.value.minutes.some((m) => Date.parse(m) / 1000 === minute)) {
        askedFor = minute;
        reread();
      }
    }),
  );
  return (
    <section aria-labelledby="trends-title">
      <h2 id="trends-title">The last hour</h2>
      <Loaded result={history()} what="the trends">
        {(h) => {
          // Read through functions: a reread updates the store in place, and the charts follow it.
          const x = () => h.minutes.map((m) => Date.parse(m) / 1000);
          const find = (name: string) => h.series.find((s) => s.name === name)!;
          // Appends the read has not counted yet (a higher seq), added to the minute they arrived in.
          const points = (s: Series) => {
            if (s.name !== 'appends' || !s.permitted) return s.points;
            const out = [...s.points];
            const minutes = x();
            for (const a of live()) {
              const i = minutes.indexOf(a.minute);
              if (a.seq > h.lastSeq && i >= 0) out[i] = (out[i] ?? 0) + 1;
            }
            return out;
          };
          return (
            <div class="trends" data-testid="trends">
              <For each={PANELS}>
                {(panel) => {
                  const refused = () => panel.lines.map((l) => find(l.name)).find((s) => !s.permitted);
                  const lines = (): TrendLine[] =>
                    panel.lines.map((l) => ({ label: find(l.name).label, stroke: l.stroke, dash: l.dash, values: points(find(l.name)) }));
                  return (
                    <figure class="trend" data-panel={panel.key}>
                      <figcaption>{panel.title}</figcaption>
                      <Show
                        when={!refused()}
                        fallback={
                          <p class="not-permitted" data-series-refused={panel.key}>
                            not permitted: {refused()!.reason}
                          </p>
                        }
                      >
                        <TrendChart
                          x={x()}
                          lines={lines()}
                          testId={`trend-${panel.key}`}
                          label={`${panel.title}, the last hour; the figures below say the same`}
                        />
                        <ul class="trend-figures">
                          <For each={panel.lines}>{(l, i) => <Figures line={lines()[i()]!} name={l.name} source={find(l.name).source} />}</For>
                        </ul>
                      </Show>
                    </figure>
                  );
                }}
              </For>
            </div>
          );
        }}
      </Loaded>
    </section>
  );
}

/** The line's latest minute and its hour as text: the chart's alternative, and its source on hover. */
function Figures(props: { line: TrendLine; name: string; source: string }) {
  const latest = () => props.line.values.at(-1) ?? null;
  const measured = () => props.line.values.filter((v): v is number => v !== null);
  const gauge = () => props.name === 'queueDepth' || props.name === 'auditBacklog';
  return (
    <li data-series={props.name} data-latest={latest() ?? ''} title={props.source}>
      <span class="trend-key" style={{ 'border-color': props.line.stroke, 'border-style': props.line.dash ? 'dashed' : 'solid' }} />
      {props.line.label}: <strong>{latest() ?? 'not measured'}</strong> this minute
      <Show when={measured().length > 0}>
        {' · '}
        {gauge() ? `peak ${Math.max(...measured())}` : `${measured().reduce((a, b) => a + b, 0)} in the hour`}
        {measured().length < props.line.values.length ? ` (measured ${measured().length} of 60 min)` : ''}
      </Show>
    </li>
  );
}
