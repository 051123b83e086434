import type { Logger } from 'pino';
import { subjects, type Bus } from '../../bus/index.ts';
import type { NewEvent } from './event-store.ts';

/**
 * The scheduler's events, as they are committed, on `suite.scheduler.event` for live views (the
 * dashboard's socket). Best effort: a view that misses one reads the log (`GET /runtime/logs`).
 */
export function publishEvents(bus: Bus, logger: Logger, events: readonly NewEvent[]): void {
  const at = new Date().toISOString();
  for (const e of events) {
    try {
      bus.publish(subjects.schedulerEvent, {
        namespace: e.namespace,
        kind: e.kind,
        taskId: e.taskId ?? null,
        scheduleId: e.scheduleId ?? null,
        attempt: e.attempt ?? null,
        detail: e.detail.slice(0, 1000),
        at,
      });
    } catch (err) {
      logger.warn({ err, kind: e.kind }, 'a scheduler event could not be published');
    }
  }
}
