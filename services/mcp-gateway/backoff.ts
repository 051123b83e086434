/** First wait before connecting again, and the longest (docs/MCP.md, "The gateway"). */
export const BACKOFF_FIRST_MS = 250;
export const BACKOFF_MAX_MS = 30_000;

/**
 * The wait before connection attempt `attempt + 1` after a loss: doubling from 250 ms, at most 30 s,
 * with up to 20% taken off at random so that replicas restarting one server do not all knock at once.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempt, 20));
  return Math.round(base * (1 - 0.2 * random()));
}
