/** Token lifetimes such as `30s`, `15m`, `8h`, `7d` (spec, Token request `expiresIn`). */

const DURATION = /^([1-9][0-9]{0,6})(s|m|h|d)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** The longest lifetime we issue: a year. Longer-lived credentials belong in a secret store. */
export const MAX_LIFETIME_SECONDS = 365 * 86400;

/** Seconds in a duration, or undefined when it is malformed or longer than a year. */
export function parseDurationSeconds(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
  return seconds <= MAX_LIFETIME_SECONDS ? seconds : undefined;
}
