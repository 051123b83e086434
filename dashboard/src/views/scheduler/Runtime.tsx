import { For, Show, type Accessor } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { SCOPE, type RuntimeHealth } from './types';

/** `GET /runtime/health`: the answering replica's workers and circuit breakers, the queue by priority; reread every 5 s. */
export function Runtime(props: { tick: Accessor<number> }) {
  const [health] = createRead(token, () => apiOf<RuntimeHealth>('scheduler', '/runtime/health'), { tick: props.tick, everyMs: 5000 });
  return (
    <section aria-labelledby="runtime-title">
      <h2 id="runtime-title">Runtime health</h2>
      <Loaded result={health()} what={`the runtime health (scope ${SCOPE.runtime})`}>
        {(h) => (
          <>
            <dl class="figures" data-testid="runtime">
              <div>
                <dt>workers busy</dt>
                <dd>
                  <span class="figure">
                    {h.workers.busy} / {h.workers.slots}
                  </span>
                </dd>
              </div>
              <div>
                <dt>replicas with leases</dt>
                <dd>
                  <span class="figure">{h.workers.replicasWithLeases}</span>
                </dd>
              </div>
              <div>
                <dt>waiting (high / normal / low)</dt>
                <dd>
                  <span class="figure">
                    {h.queue.depth.high} / {h.queue.depth.normal} / {h.queue.depth.low}
                  </span>
                </dd>
              </div>
              <div>
                <dt>running</dt>
                <dd>
                  <span class="figure">{h.queue.running}</span>
                </dd>
              </div>
              <div>
                <dt>oldest waiting</dt>
                <dd>
                  <span class="figure">{h.queue.oldestWaitingMs === null ? 'none waiting' : `${h.queue.oldestWaitingMs} ms`}</span>
                </dd>
              </div>
              <div>
                <dt>queue limit</dt>
                <dd>
                  <span class="figure">{h.queue.maxLength}</span>
                </dd>
              </div>
            </dl>
            <p class="small">
              Replica <code>{h.workers.replica}</code> answered. Outbound policy <code>{h.outboundPolicy.source}</code> (allows{' '}
              {h.outboundPolicy.allow.join(', ') || 'nothing private'}); script tasks {h.scripts.enabled ? 'on' : 'off'}.
            </p>
            <h3>Circuit breakers</h3>
            <Show when={h.breakers.length > 0} fallback={<p>No breaker on this replica has seen a target host yet.</p>}>
              <table class="breakers">
                <thead>
                  <tr>
                    <th scope="col">host</th>
                    <th scope="col">state</th>
                  </tr>
                </thead>
                <tbody>
                  <For each={h.breakers}>
                    {(b) => (
                      <tr data-host={b.host}>
                        <td>{b.host}</td>
                        <td class={b.state === 'closed' ? 'ok' : b.state === 'open' ? 'bad' : 'warn'}>{b.state}</td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </Show>
          </>
        )}
      </Loaded>
    </section>
  );
}
