import { createSignal, For, Show } from 'solid-js';
import { verifyText, type Report } from '../verify';
import { publishedKey } from '../published-key';

export function Verifier() {
  const [text, setText] = createSignal('');
  const [report, setReport] = createSignal<Report | null>(null);
  const [error, setError] = createSignal('');
  const run = async () => {
    setError('');
    setReport(null);
    try {
      setReport(await verifyText(text(), publishedKey));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    const file = e.dataTransfer?.files[0];
    if (file) setText(await file.text());
  };
  return (
    <section aria-labelledby="verifier-title">
      <h1 id="verifier-title">Verifier</h1>
      <p>Paste or drop a record (JSON), a list of records, or a chain export. It is checked here, in the browser, against the published public key.</p>
      <label for="verify-input">Record or export</label>
      <textarea
        id="verify-input"
        rows="10"
        value={text()}
        onInput={(e) => setText(e.currentTarget.value)}
        onDragOver={(e) => e.preventDefault()}
        onDrop={onDrop}
      />
      <p>
        <button type="button" onClick={run}>
          Verify in the browser
        </button>
      </p>
      <Show when={error()}>
        <p class="bad" role="alert">
          {error()}
        </p>
      </Show>
      <Show when={report()}>
        {(r) => (
          <div data-testid="verifier-report">
            <p class={r().valid ? 'ok' : 'bad'} role="status">
              {r().valid
                ? `Valid: ${r().checked} ${r().kind === 'record' ? 'record' : 'records'} checked.`
                : r().firstFailure
                  ? `Invalid at record ${r().firstFailure!.seq ?? '?'}: ${r().firstFailure!.reason}`
                  : 'Nothing to check.'}
            </p>
            <ol class="checks">
              <For each={r().checks}>
                {(c) => (
                  <li class={c.ok ? 'ok' : 'bad'}>
                    seq {c.seq ?? '?'} {c.id ?? ''}: {c.reason}
                  </li>
                )}
              </For>
            </ol>
          </div>
        )}
      </Show>
    </section>
  );
}
