import { createSignal } from 'solid-js';

/**
 * Cursor paging as the execution reads do it (an opaque `nextCursor`, never an offset): the cursors
 * of the pages walked so far, so "previous" goes back exactly and a filter change starts again.
 */
export function cursorPages() {
  const [stack, setStack] = createSignal<string[]>([]);
  return {
    cursor: () => stack().at(-1),
    page: () => stack().length + 1,
    next: (cursor: string) => setStack((s) => [...s, cursor]),
    previous: () => setStack((s) => s.slice(0, -1)),
    reset: () => setStack([]),
  };
}
