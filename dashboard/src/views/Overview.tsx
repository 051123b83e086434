import { createSignal, For, onCleanup, Show } from 'solid-js';
import { token } from '../auth';
import { connection, health, type ServiceHealth } from '../live';
import { Unknown } from './Unknown';

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
    if (now() - h.receivedAt > STALE_MS) return { service, state: 'unknown', checkedAt: at, reason: `no health report for ${Math.round((now() - h.receivedAt) / 1000)} s` };
    return h.services.find((s) => s.service === service) ?? { service, state: 'unknown', checkedAt: at, reason: 'not in the last report' };
  };

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <Show when={token()} fallback={<p>Paste a token above to see the suite live.</p>}>
        <table class="health">
          <thead><tr><th scope="col">Service</th><th scope="col">State</th><th scope="col">Probe latency</th><th scope="col">Checks</th></tr></thead>
          <tbody>
            <For each={SERVICES}>
              {(service) => {
                const r = () => row(service);
                return (
                  <tr data-service={service} data-state={r().state}>
                    <th scope="row">{service}</th>
                    <td>
                      {(() => {
                        const v = r();
                        if (v.state === 'unknown') return <Unknown reason={v.reason} />;
                        if (v.state === 'not-ready') return <span class="warn" title={v.reason}>NOT READY</span>;
                        return <span class="ok">READY</span>;
                      })()}
                    </td>
                    <td>{(() => { const v = r(); return v.state === 'unknown' ? <Unknown reason={v.reason} /> : `${v.latencyMs} ms`; })()}</td>
                    <td>{(() => { const v = r(); return v.state === 'unknown' ? <Unknown reason={v.reason} /> : Object.entries(v.checks).map(([k, ok]) => `${k} ${ok ? '✓' : '✗'}`).join(' · '); })()}</td>
                  </tr>
                );
              }}
            </For>
          </tbody>
        </table>
      </Show>
    </section>
  );
}
