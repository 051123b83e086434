import { createSignal, Show } from 'solid-js';

/**
 * A labelled field for a key the view sends as a header: kept in memory for this view's requests
 * only, said plainly next to the field.
 */
export function KeyField(props: { id: string; label: string; held: string | null; onUse: (key: string | null) => void; purpose: string }) {
  const [draft, setDraft] = createSignal('');
  return (
    <form
      class="key-field"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft() !== '') props.onUse(draft());
        setDraft('');
      }}
    >
      <Show
        when={props.held === null}
        fallback={
          <>
            <span role="status">
              {props.label} held in memory for {props.purpose}.
            </span>{' '}
            <button type="button" onClick={() => props.onUse(null)}>
              Forget the {props.label.toLowerCase()}
            </button>
          </>
        }
      >
        <label for={props.id}>{props.label}</label>
        <input id={props.id} type="password" autocomplete="off" value={draft()} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Use</button>
      </Show>
      <small>Held in this page's memory only and sent only with {props.purpose}; never stored (a reload forgets it).</small>
    </form>
  );
}
