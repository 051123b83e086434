import { createSignal, For, type Accessor } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { Pager } from './Schedules';
import { TaskTable } from './TaskTable';
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
        <select
          id="queue-state"
          value={state()}
          onChange={(e) => {
            setState(e.currentTarget.value);
            setOffset(0);
          }}
        >
          <option value="">in every state</option>
          <For each={TASK_STATES}>{(s) => <option value={s}>{s}</option>}</For>
        </select>
      </p>
      <Loaded result={list()} what={`the queue (scope ${SCOPE.queue})`}>
        {(v) => (
          <>
            <TaskTable tasks={v.tasks} empty={`No tasks${state() ? ` in state ${state()}` : ''}.`} />
            <Pager offset={offset()} total={v.total} page={PAGE} onOffset={setOffset} />
          </>
        )}
      </Loaded>
    </section>
  );
}
