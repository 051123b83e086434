import { For } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { decodeSegment } from '../../labels';
import { label, TIME_FIELDS } from '../../labels';
import { createRead } from '../../reading';
import { RelativeTime } from '../../time';
import { Loaded } from '../Loaded';
import { Attempts } from './Attempts';
import { followScheduler } from './feed';
import { LiveEvents } from './LiveEvents';
import { scheduleHref, stateClass } from './TaskTable';
import { SCOPE, type TaskRow, type TaskStatus } from './types';
import './scheduler.css';

const FIELDS: (keyof TaskRow)[] = [
  'priority',
  'attempts',
  'maxAttempts',
  'lastError',
  'lastStatus',
  'scheduleId',
  'dueAt',
  'createdAt',
  'runAfter',
  'startedAt',
  'finishedAt',
  'updatedAt',
];

/**
 * `#/scheduler/tasks/<id>`: one task's status and every attempt with its signed trace
 * (`GET /queue/:id/status`), reloaded as its live events arrive.
 */
export function Task() {
  const params = useParams<{ id: string }>();
  // The router hands the segment over still %-escaped (a firing's id holds '@' and ':').
  const id = () => decodeSegment(params.id);
  const feed = followScheduler((e) => e.taskId === id());
  const [status, reload] = createRead(
    () => ({ id: id(), t: token() }),
    ({ id }) => apiOf<TaskStatus>('scheduler', `/queue/${encodeURIComponent(id)}/status`),
    { tick: feed.tasksTick, everyMs: 10_000 },
  );
  const value = (t: TaskStatus, f: keyof TaskRow) => {
    const v = t[f];
    if (v === null) return '—';
    if (TIME_FIELDS.has(f)) return <RelativeTime iso={String(v)} />;
    if (f === 'scheduleId') return <A href={scheduleHref(String(v))}>{String(v)}</A>;
    if (f === 'lastStatus') return `HTTP ${v}`;
    return String(v);
  };
  return (
    <section aria-labelledby="task-title" class="scheduler">
      <h1 id="task-title">Task {id()}</h1>
      <p>
        <A href="/scheduler">Schedules and queue</A> ·{' '}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </p>
      <Loaded result={status()} what={`this task (scope ${SCOPE.queue})`}>
        {(t) => (
          <>
            <dl class="fields" data-testid="task-status" data-state={t.state}>
              <dt>{label('state')}</dt>
              <dd class={`state ${stateClass(t.state)}`}>{t.state}</dd>
              <For each={FIELDS}>
                {(f) => (
                  <>
                    <dt>{label(f)}</dt>
                    <dd>{value(t, f)}</dd>
                  </>
                )}
              </For>
            </dl>
            <Attempts history={t.history} attempts={t.attempts} running={t.state === 'running'} />
          </>
        )}
      </Loaded>
      <LiveEvents events={feed.events} />
    </section>
  );
}
