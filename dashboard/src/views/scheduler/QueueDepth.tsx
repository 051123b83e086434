import { For, Match, Show, Switch, type Accessor } from 'solid-js';
import { apiOf, type ApiResult } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { NotPermitted, Unknown } from '../Unknown';
import { SCOPE, TASK_STATES, type TaskList } from './types';

/**
 * How many tasks are in each state: one `GET /queue?state=…&limit=1` per state (its `total`), reread
 * every 5 s and after live task events. A count that could not be read is UNKNOWN, never 0.
 */
export function QueueDepth(props: { tick: Accessor<number> }) {
  const counts = TASK_STATES.map((state) => {
    const [r] = createRead(token, () => apiOf<TaskList>('scheduler', `/queue?state=${state}&limit=1`), { tick: props.tick, everyMs: 5000 });
    return { state, r };
  });
  const refused = () => counts.map((c) => c.r()).find((r) => r?.kind === 'not-permitted') as { message: string } | undefined;
  return (
    <section aria-labelledby="depth-title">
      <h2 id="depth-title">Queue depth by state</h2>
      <Show when={!refused()} fallback={<NotPermitted what={`the queue (scope ${SCOPE.queue})`} message={refused()!.message} />}>
        <dl class="figures" data-testid="queue-depth">
          <For each={counts}>
            {(c) => (
              <div data-state={c.state}>
                <dt>{c.state}</dt>
                <dd>
                  <Count result={c.r()} />
                </dd>
              </div>
            )}
          </For>
        </dl>
      </Show>
    </section>
  );
}

function Count(props: { result: ApiResult<TaskList> | undefined }) {
  const r = () => props.result;
  return (
    <Switch fallback={<span>…</span>}>
      <Match when={r()?.kind === 'ok'}>
        <span class="figure">{(r() as { value: TaskList }).value.total}</span>
      </Match>
      <Match when={r() !== undefined}>
        <Unknown reason={(r() as { message: string }).message} />
      </Match>
    </Switch>
  );
}
