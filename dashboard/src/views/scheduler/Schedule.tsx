import { createSignal, Show } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { decodeSegment } from '../../labels';
import { createRead } from '../../reading';
import { RelativeTime } from '../../time';
import { Loaded } from '../Loaded';
import { followScheduler } from './feed';
import { Pager } from './Schedules';
import { TaskTable } from './TaskTable';
import { SCOPE, type ScheduleRow, type TaskList } from './types';
import './scheduler.css';

const PAGE = 25;

/**
 * `#/scheduler/schedules/<id>`: one schedule (`GET /schedule/:id`) and its firings, newest first
 * (`GET /queue?scheduleId=`: each firing is a task, linking to its attempts and their traces).
 */
export function Schedule() {
  const params = useParams<{ id: string }>();
  // The router hands the segment over still %-escaped (a firing's id holds '@' and ':').
  const id = () => decodeSegment(params.id);
  const feed = followScheduler((e) => e.scheduleId === id());
  const [offset, setOffset] = createSignal(0);
  const [schedule] = createRead(
    () => ({ id: id(), t: token() }),
    ({ id }) => apiOf<ScheduleRow>('scheduler', `/schedule/${encodeURIComponent(id)}`),
    { tick: feed.schedulesTick, everyMs: 15_000 },
  );
  const [firings] = createRead(
    () => ({ id: id(), o: offset(), t: token() }),
    ({ id, o }) => apiOf<TaskList>('scheduler', `/queue?scheduleId=${encodeURIComponent(id)}&limit=${PAGE}&offset=${o}`),
    { tick: feed.tasksTick, everyMs: 15_000 },
  );
  return (
    <section aria-labelledby="schedule-title" class="scheduler">
      <h1 id="schedule-title">Schedule {id()}</h1>
      <p>
        <A href="/scheduler">Schedules and queue</A>
      </p>
      <Loaded result={schedule()} what={`this schedule (scope ${SCOPE.schedules})`}>
        {(s) => (
          <dl class="fields" data-testid="schedule" data-state={s.state}>
            <dt>State</dt>
            <dd class={`state ${s.state === 'active' ? 'ok' : 'warn'}`}>{s.state}</dd>
            <dt>Cron</dt>
            <dd>
              <code>{s.cron}</code> ({s.timezone ?? 'UTC'})
            </dd>
            <dt>Next run</dt>
            <dd>
              <RelativeTime iso={s.nextRun} none={s.state === 'paused' ? 'none while paused' : 'none'} />
            </dd>
            <dt>Last fired</dt>
            <dd>
              <RelativeTime iso={s.lastFiredAt} none="never" />
            </dd>
            <dt>Firings</dt>
            <dd>{s.firings}</dd>
            <dt>Timeout</dt>
            <dd>{s.timeout} ms</dd>
            <dt>Created</dt>
            <dd>
              <RelativeTime iso={s.createdAt} />
            </dd>
          </dl>
        )}
      </Loaded>
      <section aria-labelledby="firings-title">
        <h2 id="firings-title">Firings</h2>
        <Loaded result={firings()} what={`its firings (scope ${SCOPE.queue})`}>
          {(v) => (
            <div data-testid="firings">
              <TaskTable tasks={v.tasks} empty="No firing yet." firings />
              <Show when={v.total > PAGE}>
                <Pager offset={offset()} total={v.total} page={PAGE} onOffset={setOffset} />
              </Show>
            </div>
          )}
        </Loaded>
      </section>
    </section>
  );
}
