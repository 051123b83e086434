import { createSignal, Show } from 'solid-js';

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

/** Previous and next buttons over `cursorPages`, with the page number between them. */
export function CursorPager(props: { pages: ReturnType<typeof cursorPages>; nextCursor: string | null; label: string }) {
  return (
    <nav class="pager" aria-label={props.label}>
      <Show when={props.pages.page() > 1}>
        <button type="button" onClick={() => props.pages.previous()}>
          Previous page
        </button>
      </Show>
      <span>page {props.pages.page()}</span>
      <Show when={props.nextCursor}>
        {(c) => (
          <button type="button" onClick={() => props.pages.next(c())}>
            Next page
          </button>
        )}
      </Show>
    </nav>
  );
}
