import { createSignal, For, Show, type Accessor } from 'solid-js';
import { A } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { SCOPE, type LogPage } from './types';
import { scheduleHref, taskHref } from './TaskTable';
import { RelativeTime } from '../../time';

const PAGE = 25;

/** The scheduler's log (`GET /runtime/logs`), newest first; "Older events" pages back with `before`. */
export function Log(props: { tick: Accessor<number> }) {
  const [before, setBefore] = createSignal<number[]>([]);
  const cursor = () => before()[before().length - 1];
  const [page] = createRead(
    () => ({ b: cursor(), t: token() }),
    ({ b }) => apiOf<LogPage>('scheduler', `/runtime/logs?limit=${PAGE}${b !== undefined ? `&before=${b}` : ''}`),
    { tick: props.tick, everyMs: 15_000 },
  );
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Scheduler log</h2>
      <Loaded result={page()} what={`the scheduler log (scope ${SCOPE.runtime})`}>
        {(p) => (
          <>
            <EventTable events={p.events} testid="log" />
            <div class="pager">
              <button type="button" disabled={before().length === 0} onClick={() => setBefore((b) => b.slice(0, -1))}>
                Newer events
              </button>
              <Show when={p.next !== null}>
                <button type="button" onClick={() => setBefore((b) => [...b, p.next!])}>
                  Older events
                </button>
              </Show>
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}

/** Scheduler events as a table: the log's and the live list's. */
export function EventTable(props: {
  events: { seq?: number; at: string; kind: string; taskId: string | null; scheduleId: string | null; attempt: number | null; detail: string }[];
  testid: string;
  empty?: string;
}) {
  return (
    <table class="events" data-testid={props.testid}>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Task or schedule</th>
          <th scope="col">Detail</th>
          <th scope="col">Attempt</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.events}
          fallback={
            <tr>
              <td colspan="5">{props.empty ?? 'No events.'}</td>
            </tr>
          }
        >
          {(e) => (
            <tr data-kind={e.kind} data-task={e.taskId ?? ''} data-schedule={e.scheduleId ?? ''}>
              <td>{e.kind}</td>
              <td>
                {e.taskId !== null ? (
                  <A href={taskHref(e.taskId)}>{e.taskId}</A>
                ) : e.scheduleId !== null ? (
                  <A href={scheduleHref(e.scheduleId)}>{e.scheduleId}</A>
                ) : (
                  ''
                )}
              </td>
              <td>{e.detail}</td>
              <td>{e.attempt ?? ''}</td>
              <td>
                <RelativeTime iso={e.at} />
              </td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}
