import { createSignal, For, type Accessor } from 'solid-js';
import { A } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { Pager } from './Schedules';
import { SCOPE, TASK_STATES, type TaskList } from './types';

const PAGE = 25;

/** The queue (`GET /queue`), newest first, filtered by state, a page at a time; each task links to its status. */
export function Queue(props: { tick: Accessor<number> }) {
  const [state, setState] = createSignal('');
  const [offset, setOffset] = createSignal(0);
  const [list] = createRead(
    () => ({ s: state(), o: offset(), t: token() }),
    ({ s, o }) => apiOf<TaskList>('scheduler', `/queue?limit=${PAGE}&offset=${o}${s ? `&state=${s}` : ''}`),
    { tick: props.tick, everyMs: 15_000 },
  );
  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Queue</h2>
      <p>
        <label for="queue-state">Show tasks</label>{' '}
        <select id="queue-state" value={state()} onChange={(e) => { setState(e.currentTarget.value); setOffset(0); }}>
          <option value="">in every state</option>
          <For each={TASK_STATES}>{(s) => <option value={s}>{s}</option>}</For>
        </select>
      </p>
      <Loaded result={list()} what={`the queue (scope ${SCOPE.queue})`}>
        {(v) => (
          <>
            <table class="queue">
              <thead><tr><th scope="col">task</th><th scope="col">state</th><th scope="col">attempts</th><th scope="col">priority</th><th scope="col">last result</th><th scope="col">schedule</th><th scope="col">updated</th></tr></thead>
              <tbody>
                <For each={v.tasks} fallback={<tr><td colspan="7">No tasks{state() ? ` in state ${state()}` : ''}.</td></tr>}>
                  {(task) => (
                    <tr data-task={task.id} data-state={task.state}>
                      <td><A href={`/scheduler/tasks/${encodeURIComponent(task.id)}`}>{task.id}</A></td>
                      <td class={stateClass(task.state)}>{task.state}</td>
                      <td>{task.attempts} of {task.maxAttempts}</td>
                      <td>{task.priority}</td>
                      <td>{task.lastError ?? (task.lastStatus !== null ? `HTTP ${task.lastStatus}` : '')}</td>
                      <td>{task.scheduleId ?? ''}</td>
                      <td>{task.updatedAt}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <Pager offset={offset()} total={v.total} page={PAGE} onOffset={setOffset} />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function stateClass(state: string): string {
  if (state === 'succeeded') return 'ok';
  if (state === 'failed' || state === 'dead') return 'bad';
  if (state === 'retrying') return 'warn';
  return '';
}
