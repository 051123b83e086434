import { For } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { followScheduler } from './feed';
import { LiveEvents } from './LiveEvents';
import { stateClass } from './Queue';
import { SCOPE, type TaskRow } from './types';
import './scheduler.css';

/** `#/scheduler/tasks/<id>`: one task's status (`GET /queue/:id/status`), reloaded as its live events arrive. */
export function Task() {
  const params = useParams<{ id: string }>();
  const feed = followScheduler((e) => e.taskId === params.id);
  const [status, reload] = createRead(
    () => ({ id: params.id, t: token() }),
    ({ id }) => apiOf<TaskRow>('scheduler', `/queue/${encodeURIComponent(id)}/status`),
    { tick: feed.tasksTick, everyMs: 10_000 },
  );
  const fields: (keyof TaskRow)[] = ['priority', 'attempts', 'maxAttempts', 'lastError', 'lastStatus', 'scheduleId', 'dueAt', 'createdAt', 'runAfter', 'startedAt', 'finishedAt', 'updatedAt'];
  return (
    <section aria-labelledby="task-title" class="scheduler">
      <h1 id="task-title">Task {params.id}</h1>
      <p><A href="/scheduler">Schedules and queue</A> · <button type="button" onClick={reload}>Refresh</button></p>
      <Loaded result={status()} what={`this task (scope ${SCOPE.queue})`}>
        {(t) => (
          <dl class="fields" data-testid="task-status" data-state={t.state}>
            <dt>state</dt><dd class={stateClass(t.state)}>{t.state}</dd>
            <For each={fields}>{(f) => <><dt>{f}</dt><dd>{t[f] === null ? '—' : String(t[f])}</dd></>}</For>
          </dl>
        )}
      </Loaded>
      <LiveEvents events={feed.events} />
    </section>
  );
}
