import { describe, expect, it } from 'vitest';
import { checkCron, nextAfterFiring, nextRunAfter } from './cron.ts';

const T0 = new Date('2026-03-07T10:02:30.000Z');

describe('cron', () => {
  it('accepts five-field expressions and refuses nicknames, seconds fields and bad values, naming the problem', () => {
    expect(checkCron('*/5 * * * *')).toEqual({ ok: true });
    expect(checkCron('0 9 * * 1-5', 'Europe/Berlin')).toEqual({ ok: true });
    expect(checkCron('@hourly')).toMatchObject({ ok: false, message: expect.stringContaining('five fields') });
    expect(checkCron('0 */5 * * * *')).toMatchObject({ ok: false, message: expect.stringContaining('five fields') });
    expect(checkCron('61 * * * *')).toMatchObject({ ok: false, message: expect.stringContaining('minute') });
    expect(checkCron('* * 31 2 *')).toMatchObject({ ok: false });
    expect(checkCron('* * * * *', 'Mars/Olympus')).toMatchObject({ ok: false, message: expect.stringContaining('IANA') });
  });

  it('computes the next run in UTC unless a time zone is named', () => {
    expect(nextRunAfter('*/5 * * * *', undefined, T0)?.toISOString()).toBe('2026-03-07T10:05:00.000Z');
    expect(nextRunAfter('0 9 * * *', undefined, T0)?.toISOString()).toBe('2026-03-08T09:00:00.000Z');
    // 09:00 in Berlin is 08:00 UTC in March (CET, UTC+1).
    expect(nextRunAfter('0 9 * * *', 'Europe/Berlin', T0)?.toISOString()).toBe('2026-03-08T08:00:00.000Z');
  });

  it('fires a schedule that missed many occurrences once, with its next run after now rather than a backlog', () => {
    const dueAt = new Date('2026-03-07T08:00:00.000Z');
    // Down for two hours: 120 occurrences of an every-minute schedule were missed.
    expect(nextAfterFiring('* * * * *', undefined, dueAt, T0)?.toISOString()).toBe('2026-03-07T10:03:00.000Z');
    // Claimed a little early (clock skew between replicas): the next run is after the one due.
    expect(nextAfterFiring('* * * * *', undefined, new Date('2026-03-07T10:03:00.000Z'), T0)?.toISOString()).toBe('2026-03-07T10:04:00.000Z');
  });
});
