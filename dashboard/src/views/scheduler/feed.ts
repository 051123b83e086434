import { createSignal, onCleanup, type Accessor } from 'solid-js';
import { onLive, type SchedulerEvent } from '../../live';
import { throttled } from '../../reading';

export type FeedEvent = SchedulerEvent['event'];

/** At most this many live events are kept on screen; the log (`GET /runtime/logs`) holds the rest. */
const KEPT = 100;
/** Reloads caused by live events happen at most this often per kind of data. */
const THROTTLE_MS = 800;

export interface SchedulerFeed {
  /** Live events since the view opened, newest first. */
  events: Accessor<FeedEvent[]>;
  /** Change after live events touched schedules / tasks (throttled): panels reload on them. */
  schedulesTick: Accessor<number>;
  tasksTick: Accessor<number>;
}

/**
 * Follows the socket's `scheduler.event` messages for as long as the calling view lives: keeps them
 * for the live list and turns bursts of them into one reload of the rows they affect.
 */
export function followScheduler(only?: (e: FeedEvent) => boolean): SchedulerFeed {
  const [events, setEvents] = createSignal<FeedEvent[]>([]);
  const [schedulesTick, setSchedulesTick] = createSignal(0);
  const [tasksTick, setTasksTick] = createSignal(0);
  const bumpSchedules = throttled(() => setSchedulesTick((n) => n + 1), THROTTLE_MS);
  const bumpTasks = throttled(() => setTasksTick((n) => n + 1), THROTTLE_MS);
  onCleanup(
    onLive('scheduler.event', ({ event }) => {
      if (only !== undefined && !only(event)) return;
      setEvents((list) => [event, ...list].slice(0, KEPT));
      // A firing changes the schedule (next run, firings) and enqueues a task.
      if (event.kind.startsWith('schedule-')) bumpSchedules();
      if (event.kind.startsWith('task-') || event.kind === 'schedule-fired') bumpTasks();
    }),
  );
  return { events, schedulesTick, tasksTick };
}
