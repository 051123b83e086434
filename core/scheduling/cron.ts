import { Cron } from 'croner';

/**
 * Cron arithmetic (croner, in its five-field mode): validation and the next run after a moment.
 * Pure: the moment is passed in, never read from a clock.
 */

export type CronCheck = { ok: true } | { ok: false; message: string };

/** A five-field expression (minute hour day-of-month month day-of-week) and an optional IANA zone. */
export function checkCron(expression: string, timezone?: string): CronCheck {
  const fields = expression.trim().split(/\s+/);
  // croner also accepts nicknames (@hourly) and seconds/years fields; the spec asks for five fields.
  if (fields.length !== 5) return { ok: false, message: `cron must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}` };
  if (timezone !== undefined && !isTimeZone(timezone)) return { ok: false, message: `timezone "${timezone.slice(0, 64)}" is not an IANA time zone` };
  try {
    const cron = build(expression, timezone);
    if (cron.nextRun(new Date(0)) === null && cron.nextRun(new Date()) === null) return { ok: false, message: 'cron never fires' };
    return { ok: true };
  } catch (err) {
    return { ok: false, message: `cron is not valid: ${(err as Error).message.replace(/^CronPattern: /, '').slice(0, 200)}` };
  }
}

/** The first firing strictly after `after`, or null if there is none. */
export function nextRunAfter(expression: string, timezone: string | undefined, after: Date): Date | null {
  return build(expression, timezone).nextRun(after);
}

function build(expression: string, timezone: string | undefined): Cron {
  return new Cron(expression.trim(), { mode: '5-part', paused: true, ...(timezone !== undefined ? { timezone } : {}) });
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The catch-up rule (docs/SCHEDULER.md): a schedule due at `dueAt` and claimed at `now` fires once,
 * whatever the number of occurrences it missed while no replica ran; its next run is the first
 * occurrence after `now` (after `dueAt` when claimed early), never a backlog of the missed ones.
 */
export function nextAfterFiring(expression: string, timezone: string | undefined, dueAt: Date, now: Date): Date | null {
  return nextRunAfter(expression, timezone, now.getTime() > dueAt.getTime() ? now : dueAt);
}
