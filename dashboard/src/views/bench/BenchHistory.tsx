import { RelativeTime } from '../../time';
import { createResource, createSignal, For, onCleanup, Show } from 'solid-js';
import { A, useSearchParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { onLive } from '../../live';
import { Loaded } from '../Loaded';
import { CorePanel } from './CorePanel';
import { RunForm } from './RunForm';
import { ms } from './format';
import type { History } from './types';
import './bench.css';

const PAGE = 20;
type Filters = { name?: string; provider?: string; model?: string; offset?: string };

/** The query of `GET /history` from the view's own search parameters (so a filtered page can be shared). */
export function historyPath(f: Filters, limit = PAGE): string {
  const q = new URLSearchParams({ limit: String(limit), offset: String(Math.max(0, Number(f.offset ?? 0) || 0)) });
  for (const k of ['name', 'provider', 'model'] as const) if (f[k]) q.set(k, f[k]!);
  return `/history?${q}`;
}

/** `#/bench`: benchmark runs, newest first, filtered and paged as the API does; the core benchmark; a run form. */
export function BenchHistory() {
  const [search, setSearch] = useSearchParams<Filters>();
  const key = () => ({ path: historyPath(search), t: token() });
  const [history, { refetch }] = createResource(key, ({ path }) => apiOf<History>('bench', path));
  // A run's live state: rows follow the socket; a run the page does not list yet reloads the page.
  const [live, setLive] = createSignal<Record<string, { status: string; done: number; total: number }>>({});
  onCleanup(
    onLive('bench.progress', (p) => {
      setLive((m) => ({ ...m, [p.jobId]: { status: p.status, done: p.done, total: p.total } }));
      const h = history();
      const listed = h?.kind === 'ok' && h.value.runs.some((r) => r.jobId === p.jobId);
      if (!listed && p.status === 'queued') void refetch();
    }),
  );
  const [draft, setDraft] = createSignal<Filters>({});
  const field = (k: 'name' | 'provider' | 'model') => draft()[k] ?? search[k] ?? '';
  const apply = (e: Event) => {
    e.preventDefault();
    const d = { name: field('name'), provider: field('provider'), model: field('model') };
    setSearch({ name: d.name || undefined, provider: d.provider || undefined, model: d.model || undefined, offset: undefined });
  };
  const offset = () => Number(search.offset ?? 0) || 0;

  return (
    <section class="bench-page" aria-labelledby="bench-title">
      <h1 id="bench-title">Benchmark runs</h1>
      <p>
        Runs of HTTP endpoints and LLM providers, newest first. Open a run for its percentiles and charts, or <A href="/bench/compare">compare two runs</A>.
      </p>
      <form class="bench-filters" onSubmit={apply} aria-label="filter the runs">
        <label>
          Name <input name="name" value={field('name')} onInput={(e) => setDraft({ ...draft(), name: e.currentTarget.value })} />
        </label>
        <label>
          Provider
          <select name="provider" value={field('provider')} onChange={(e) => setDraft({ ...draft(), provider: e.currentTarget.value })}>
            <option value="">any</option>
            <option>http</option>
            <option>openai</option>
            <option>anthropic</option>
            <option>ollama</option>
          </select>
        </label>
        <label>
          Model <input name="model" value={field('model')} onInput={(e) => setDraft({ ...draft(), model: e.currentTarget.value })} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <Loaded result={history()} what="the benchmark runs (scope bench:read)">
        {(value) => {
          const h = () => value;
          return (
            <>
              <table class="bench-history" data-testid="bench-history">
                <caption>
                  {h().total} run{h().total === 1 ? '' : 's'}
                  {h().total > 0 ? `; ${h().offset + 1}–${h().offset + h().runs.length} shown` : ''}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">run</th>
                    <th scope="col">state</th>
                    <th scope="col">provider</th>
                    <th scope="col">p50</th>
                    <th scope="col">p99</th>
                    <th scope="col">calls/s</th>
                    <th scope="col">created</th>
                  </tr>
                </thead>
                <tbody>
                  <For
                    each={h().runs}
                    fallback={
                      <tr>
                        <td colspan="7">No runs match.</td>
                      </tr>
                    }
                  >
                    {(r) => {
                      const state = () => (r.status === 'succeeded' || r.status === 'failed' ? r.status : (live()[r.jobId]?.status ?? r.status));
                      return (
                        <tr data-job={r.jobId} data-name={r.name ?? ''}>
                          <td>
                            <A href={`/bench/runs/${r.jobId}`}>{r.name ?? r.jobId}</A>
                          </td>
                          <td data-testid="row-status">
                            {state()}
                            {state() !== r.status && live()[r.jobId] ? ` (${live()[r.jobId]!.done}/${live()[r.jobId]!.total})` : ''}
                          </td>
                          <td>
                            {r.provider}
                            {r.model ? ` ${r.model}` : ''}
                          </td>
                          <td>{r.result ? ms(r.result.latency.p50Ms) : '—'}</td>
                          <td>{r.result ? ms(r.result.latency.p99Ms) : '—'}</td>
                          <td>{r.result ? r.result.throughputPerSecond.toFixed(1) : '—'}</td>
                          <td>
                            <RelativeTime iso={r.createdAt} />
                          </td>
                        </tr>
                      );
                    }}
                  </For>
                </tbody>
              </table>
              <nav class="bench-pages" aria-label="pages of runs">
                <Show when={offset() > 0}>
                  <button type="button" onClick={() => setSearch({ offset: String(Math.max(0, offset() - PAGE)) })}>
                    Newer runs
                  </button>
                </Show>
                <Show when={h().offset + h().runs.length < h().total}>
                  <button type="button" onClick={() => setSearch({ offset: String(offset() + PAGE) })}>
                    Older runs
                  </button>
                </Show>
              </nav>
            </>
          );
        }}
      </Loaded>
      <RunForm onStarted={() => void refetch()} />
      <CorePanel />
    </section>
  );
}
