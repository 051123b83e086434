import { createSignal, Show } from 'solid-js';
import { apiOf } from '../../api';
import { VERIFY_SCOPE } from './types';

type Outcome = { tone: 'ok' | 'bad' | 'warn'; text: string };

/**
 * `POST /connectors/{id}/verify`: a read-only credential check (it never posts, writes or sends an
 * event). Its answer is shown as it came: valid, not configured, rejected, or not permitted.
 */
export function VerifyButton(props: { id: string }) {
  const [busy, setBusy] = createSignal(false);
  const [outcome, setOutcome] = createSignal<Outcome | null>(null);
  const verify = async () => {
    setBusy(true);
    const r = await apiOf<{ id: string; valid: boolean; detail: string }>('connector', `/connectors/${encodeURIComponent(props.id)}/verify`, {
      method: 'POST',
    });
    setBusy(false);
    if (r.kind === 'ok') setOutcome({ tone: r.value.valid ? 'ok' : 'bad', text: `${r.value.valid ? 'valid' : 'not valid'}: ${r.value.detail}` });
    else if (r.kind === 'not-permitted') setOutcome({ tone: 'bad', text: `Not permitted: verifying needs a token with ${VERIFY_SCOPE}. (${r.message})` });
    else if (r.kind === 'unreachable') setOutcome({ tone: 'warn', text: `UNKNOWN: ${r.message}` });
    else setOutcome({ tone: 'bad', text: `not verified: ${r.message}` });
  };
  return (
    <p class="connector-verify">
      <button type="button" onClick={verify} disabled={busy()} aria-describedby={`verify-${props.id}`}>
        Verify {props.id}
      </button>{' '}
      <Show when={busy()}>
        <span role="status">checking…</span>
      </Show>
      <span id={`verify-${props.id}`} role="status" data-testid={`verify-${props.id}`} class={outcome()?.tone ?? ''}>
        {busy() ? '' : (outcome()?.text ?? '')}
      </span>
    </p>
  );
}
