import { createMemo, type Accessor } from 'solid-js';
import type { ApiResult } from '../api';

/**
 * The newest successful value of a read. Loaded hands its children the value it had when it first
 * succeeded (its Match is not keyed), so a view whose read is fetched again (a filter changed, a run
 * ended, another id) reads the newest value through this instead. Keeps the last value while a new
 * answer is not a value, so children Loaded is about to remove never see undefined.
 */
export function latestOk<T>(read: Accessor<ApiResult<T> | undefined>): Accessor<T | undefined> {
  return createMemo<T | undefined>((previous) => {
    const r = read();
    return r?.kind === 'ok' ? r.value : previous;
  });
}
