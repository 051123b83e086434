import { createResource, createSignal, For, lazy, Match, onCleanup, Show, Suspense, Switch } from 'solid-js';
import { api } from '../api';
import { lastVerification, verifyChain, verifying } from '../chain-state';
import { token } from '../auth';
import { connection, health, onTrace, type ServiceHealth } from '../live';
import { NotPermitted } from './Unknown';
import { Unknown, WithReason } from './Unknown';
import { KeyFigures } from './KeyFigures';

/** The trends draw with uPlot: loaded after the first screen, in a chunk of their own. */
const Trends = lazy(() => import('./trends/Trends').then((m) => ({ default: m.Trends })));

/** A health round older than this is no longer current: shown as UNKNOWN rather than passed off. */
const STALE_MS = 6000;
const SERVICES = ['token', 'scheduler', 'bench', 'connector', 'trust'];

export function Overview() {
  const [now, setNow] = createSignal(Date.now());
  const tick = setInterval(() => setNow(Date.now()), 1000);
  onCleanup(() => clearInterval(tick));

  /** Each service's row, or why it is unknown: no socket, a stale round, or the probe's own reason. */
  const row = (service: string): ServiceHealth => {
    const h = health();
    const at = new Date().toISOString();
    if (connection().state !== 'open' || h === null) return { service, state: 'unknown', checkedAt: at, reason: connection().reason || 'no health report yet' };
    if (now() - h.receivedAt > STALE_MS)
      return { service, state: 'unknown', checkedAt: at, reason: `no health report for ${Math.round((now() - h.receivedAt) / 1000)} s` };
    return h.services.find((s) => s.service === service) ?? { service, state: 'unknown', checkedAt: at, reason: 'not in the last report' };
  };

  // The chain's head: the newest record, then each one the socket says was appended.
  const [newest] = createResource(token, () => api<{ records: { seq: number; hash: string; timestamp: string }[] }>('/executions?limit=1'));
  const [appended, setAppended] = createSignal<{ seq: number; hash: string } | null>(null);
  onCleanup(onTrace((t) => setAppended({ seq: t.seq, hash: t.hash })));
  const head = () => {
    const n = newest();
    const a = appended();
    const loaded = n?.kind === 'ok' ? (n.value.records[0] ?? null) : null;
    if (a !== null && (loaded === null || a.seq > loaded.seq)) return a;
    return loaded;
  };

  /** Services down, UNKNOWN or not ready: named first, before any figure, as the thing to look at. */
  const urgent = () => SERVICES.map(row).filter((r) => r.state !== 'ready');

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <Show when={token()} fallback={<p>Paste a token above to see the suite live.</p>}>
        <div role="alert" data-testid="attention-banner">
          <Show when={urgent().length > 0}>
            <div class="attention-banner">
              <span class="urgent-mark">
                Needs attention: {urgent().length} of {SERVICES.length} services not ready
              </span>
              <ul>
                <For each={urgent()}>
                  {(r) => (
                    <li data-service={r.service}>
                      <strong>{r.service}</strong> is {r.state === 'unknown' ? 'UNKNOWN: down, or not heard from' : 'NOT READY'} (the reason is in its row
                      below)
                    </li>
                  )}
                </For>
              </ul>
            </div>
          </Show>
        </div>
        <table class="health">
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">State</th>
              <th scope="col">Probe latency</th>
              <th scope="col">Checks</th>
            </tr>
          </thead>
          <tbody>
            <For each={SERVICES}>
              {(service) => {
                const r = () => row(service);
                return (
                  <tr data-service={service} data-state={r().state} classList={{ urgent: r().state !== 'ready' }}>
                    <th scope="row">{service}</th>
                    <td>
                      {(() => {
                        const v = r();
                        if (v.state === 'unknown') return <Unknown reason={v.reason} />;
                        if (v.state === 'not-ready') return <WithReason class="bad urgent-mark" text="NOT READY" reason={v.reason} />;
                        return <span class="ok">READY</span>;
                      })()}
                    </td>
                    <td>
                      {(() => {
                        const v = r();
                        return v.state === 'unknown' ? <Unknown reason={v.reason} /> : `${v.latencyMs} ms`;
                      })()}
                    </td>
                    <td>
                      {(() => {
                        const v = r();
                        return v.state === 'unknown' ? (
                          <Unknown reason={v.reason} />
                        ) : (
                          Object.entries(v.checks)
                            .map(([k, ok]) => `${k} ${ok ? '✓' : '✗'}`)
                            .join(' · ')
                        );
                      })()}
                    </td>
                  </tr>
                );
              }}
            </For>
          </tbody>
        </table>
        <Suspense fallback={<p role="status">Loading the trends…</p>}>
          <Trends />
        </Suspense>
        <KeyFigures />
        <h2>Execution chain</h2>
        <Switch>
          <Match when={newest()?.kind === 'not-permitted'}>
            <NotPermitted what="the execution chain (scope execution:read)" message={(newest() as { message: string }).message} />
          </Match>
          <Match when={newest()?.kind === 'error' || newest()?.kind === 'unreachable'}>
            <p>
              Head: <Unknown reason={(newest() as { message: string }).message} />
            </p>
          </Match>
          <Match when={newest()?.kind === 'ok'}>
            <dl class="fields" data-testid="chain-head">
              <dt>Head</dt>
              <dd>{head() ? `record ${head()!.seq}, hash ${head()!.hash.slice(0, 16)}…` : 'no records yet'}</dd>
              <dt>Last verification</dt>
              <dd>
                <Show when={lastVerification()} fallback={<span>not run in this tab </span>}>
                  {(v) => (
                    <span class={v().ok ? 'ok' : 'bad'}>
                      {v().text} ({new Date(v().at).toLocaleTimeString()}){' '}
                    </span>
                  )}
                </Show>
                <button type="button" onClick={verifyChain} disabled={verifying()}>
                  {verifying() ? 'verifying…' : 'Verify now'}
                </button>
              </dd>
            </dl>
          </Match>
        </Switch>
      </Show>
    </section>
  );
}
