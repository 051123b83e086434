import { createSignal, Show } from 'solid-js';
import { useNavigate } from '@solidjs/router';
import { apiOf } from '../../api';

/**
 * Start an HTTP benchmark (`POST /run`, scope bench:run; counts against the tenant's benchmarkRuns).
 * The listener checks every field (and the outbound policy for the URL); its 400 is shown as said.
 */
export function RunForm(props: { onStarted(): void }) {
  const navigate = useNavigate();
  const [url, setUrl] = createSignal('');
  const [name, setName] = createSignal('');
  const [testRuns, setTestRuns] = createSignal(20);
  const [concurrency, setConcurrency] = createSignal(1);
  const [busy, setBusy] = createSignal(false);
  const [message, setMessage] = createSignal<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    const body = { provider: 'http', url: url(), testRuns: testRuns(), concurrency: concurrency(), ...(name() ? { name: name() } : {}) };
    const r = await apiOf<{ jobId: string; status: string; estimatedDuration: string }>('bench', '/run', { method: 'POST', body });
    setBusy(false);
    if (r.kind === 'ok') {
      props.onStarted();
      navigate(`/bench/runs/${r.value.jobId}`);
    } else if (r.kind === 'not-permitted') setMessage({ ok: false, text: `Not permitted: this token cannot start runs (scope bench:run). (${r.message})` });
    else setMessage({ ok: false, text: `Not started: ${r.message}` });
  };
  return (
    <details class="bench-run-form">
      <summary>Run an HTTP benchmark</summary>
      <p>
        Needs a token with <code>bench:run</code>. Each call requests the URL; the outbound policy decides which addresses may be reached.
      </p>
      <form onSubmit={submit}>
        <label>
          URL <input name="url" type="url" required value={url()} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="http://127.0.0.1:8080/health" />
        </label>
        <label>
          Name (optional) <input name="run-name" value={name()} onInput={(e) => setName(e.currentTarget.value)} maxLength={200} />
        </label>
        <label>
          Measured calls{' '}
          <input name="testRuns" type="number" min="1" max="500" required value={testRuns()} onInput={(e) => setTestRuns(e.currentTarget.valueAsNumber)} />
        </label>
        <label>
          Concurrency{' '}
          <input
            name="concurrency"
            type="number"
            min="1"
            max="32"
            required
            value={concurrency()}
            onInput={(e) => setConcurrency(e.currentTarget.valueAsNumber)}
          />
        </label>
        <button type="submit" disabled={busy()}>
          Start the run
        </button>
      </form>
      <Show when={message()}>
        {(m) => (
          <p class={m().ok ? 'ok' : 'bad'} role="alert">
            {m().text}
          </p>
        )}
      </Show>
    </details>
  );
}
