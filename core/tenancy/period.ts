/**
 * The quota window: a UTC calendar month, named `YYYY-MM` (spec, "Usage report" and "Limits").
 * Pure: the clock is the caller's.
 */
export const PERIOD_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$';
const PERIOD = new RegExp(PERIOD_PATTERN);

export function isPeriod(value: string): boolean {
  return PERIOD.test(value);
}

/** The period containing the instant `ms` (Unix milliseconds). */
export function periodOf(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** When the period's window closes and the next one starts: 00:00:00 UTC on the 1st of the next month. */
export function periodEnd(period: string): Date {
  if (!isPeriod(period)) throw new RangeError(`not a period (YYYY-MM): ${period}`);
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(5, 7));
  const end = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0-99 to 1900-1999.
  end.setUTCFullYear(year, month, 1);
  return end;
}
