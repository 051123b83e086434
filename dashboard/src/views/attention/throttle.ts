import { onCleanup } from 'solid-js';

/**
 * Calls `run` at most once per `intervalMs`, however often `poke` is called: a burst of live events
 * becomes one re-read now and at most one more at the end of the interval (trailing), never a storm
 * of requests and never a missed last event.
 */
export function throttled(run: () => void, intervalMs: number): () => void {
  let last = 0;
  let pending: number | undefined;
  onCleanup(() => window.clearTimeout(pending));
  return () => {
    if (pending !== undefined) return;
    const wait = Math.max(0, last + intervalMs - Date.now());
    pending = window.setTimeout(() => {
      pending = undefined;
      last = Date.now();
      run();
    }, wait);
  };
}
