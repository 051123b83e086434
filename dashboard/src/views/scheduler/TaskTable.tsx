import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { RelativeTime } from '../../time';
import type { TaskRow } from './types';

export const taskHref = (id: string) => `/scheduler/tasks/${encodeURIComponent(id)}`;
export const scheduleHref = (id: string) => `/scheduler/schedules/${encodeURIComponent(id)}`;

/** Tasks as rows, each a link to its page: the queue's, and a schedule's firings (`due` shown then). */
export function TaskTable(props: { tasks: TaskRow[]; empty: string; firings?: boolean }) {
  return (
    <table class="queue">
      <thead>
        <tr>
          <th scope="col">Task</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          {props.firings ? <th scope="col">Due</th> : <th scope="col">Priority</th>}
          <th scope="col">Last result</th>
          {props.firings ? null : <th scope="col">Schedule</th>}
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.tasks}
          fallback={
            <tr>
              <td colspan="7">{props.empty}</td>
            </tr>
          }
        >
          {(task) => (
            <tr data-task={task.id} data-state={task.state}>
              <td>
                <A href={taskHref(task.id)}>{task.id}</A>
              </td>
              <td class={`state ${stateClass(task.state)}`}>{task.state}</td>
              <td class="nowrap">
                {task.attempts} of {task.maxAttempts}
              </td>
              <td>{props.firings ? <RelativeTime iso={task.dueAt} /> : task.priority}</td>
              <td>{task.lastError ?? (task.lastStatus !== null ? `HTTP ${task.lastStatus}` : '')}</td>
              {props.firings ? null : <td>{task.scheduleId !== null ? <A href={scheduleHref(task.scheduleId)}>{task.scheduleId}</A> : ''}</td>}
              <td>
                <RelativeTime iso={task.updatedAt} />
              </td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}

export function stateClass(state: string): string {
  if (state === 'succeeded') return 'ok';
  if (state === 'failed' || state === 'dead') return 'bad';
  if (state === 'retrying') return 'warn';
  return '';
}
