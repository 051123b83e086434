import { createEffect, on, onCleanup, type Accessor } from 'solid-js';
import { createStore, reconcile } from 'solid-js/store';
import type { ApiResult } from './api';

/**
 * A read that keeps its last answer on screen while it reloads (no flash of "Loading…" on each
 * refresh, unlike a resource under Suspense), and replaces it with whatever the next answer is: a
 * listener that stops answering turns the figure UNKNOWN at the next reload, never a stale value.
 * It reloads when its key changes, on `reload()`, when `tick` changes, and every `everyMs` when given.
 * Each answer is reconciled into a store (items matched by `id`), so a reload changes only what
 * changed: rows keep their DOM (and keyboard focus), and views rendered once from the value (such as
 * `Loaded`'s children) still follow it.
 */
export function createRead<K, T>(
  key: Accessor<K>,
  fetcher: (key: K) => Promise<ApiResult<T>>,
  options: { everyMs?: number; tick?: Accessor<unknown> } = {},
): [Accessor<ApiResult<T> | undefined>, () => void] {
  const [state, setState] = createStore<{ r: ApiResult<T> | undefined }>({ r: undefined });
  const result = () => state.r;
  let generation = 0;
  const load = (k: K, fresh: boolean) => {
    const mine = ++generation;
    if (fresh) setState('r', undefined);
    void fetcher(k).then((r) => {
      // An answer to an older key (or overtaken by a later reload) is dropped.
      if (mine === generation) setState('r', reconcile(r, { key: 'id', merge: true }));
    });
  };
  createEffect(on(key, (k) => load(k, true)));
  // A tick (a live event touched this data) reloads in place.
  if (options.tick !== undefined) createEffect(on(options.tick, () => load(key(), false), { defer: true }));
  if (options.everyMs !== undefined) {
    const timer = window.setInterval(() => load(key(), false), options.everyMs);
    onCleanup(() => window.clearInterval(timer));
  }
  return [result, () => load(key(), false)];
}

/**
 * Calls `run` at most once per `ms`, at the end of a burst (trailing edge): a stream of live events
 * turns into one reload, not one per event.
 */
export function throttled(run: () => void, ms: number): () => void {
  let timer: number | undefined;
  onCleanup(() => window.clearTimeout(timer));
  return () => {
    if (timer !== undefined) return;
    timer = window.setTimeout(() => {
      timer = undefined;
      run();
    }, ms);
  };
}

/** Whether a token's scopes grant `required` (`*` and `*` segments as the suite reads them; core/capability/scope.ts). */
export function grants(scopes: readonly string[], required: string): boolean {
  const r = required.split(':');
  return scopes.some((g) => {
    if (g === '*' || g === required) return true;
    const s = g.split(':');
    return s.length === r.length && s.every((part, i) => part === '*' || part === r[i]);
  });
}
