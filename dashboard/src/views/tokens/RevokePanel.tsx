import { createSignal, Show } from 'solid-js';
import { apiOf } from '../../api';
import { failureText } from './call';

/** A JWT has three dot-separated parts; a jti has none. */
const looksLikeToken = (s: string) => s.split('.').length === 3;

/** `POST /auth/token/revoke` by jti or by the token itself, with the pasted token. */
export function RevokePanel() {
  const [what, setWhat] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [result, setResult] = createSignal<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const v = what().trim();
    if (!v) return;
    setBusy(true);
    setResult(null);
    const r = await apiOf<{ revoked: boolean; jti: string }>('token', '/auth/token/revoke', {
      method: 'POST',
      body: looksLikeToken(v) ? { token: v } : { jti: v },
    });
    setBusy(false);
    if (r.kind !== 'ok')
      return void setResult({ ok: false, text: failureText(r.kind === 'error' ? r.status : r.kind === 'unreachable' ? null : 403, r.message) });
    setResult(
      r.value.revoked
        ? { ok: true, text: `Revoked ${r.value.jti}: every listener refuses it from now on.` }
        : { ok: false, text: `Nothing to revoke: ${r.value.jti || 'this token'} is unknown, already revoked or expired.` },
    );
    if (r.value.revoked) setWhat('');
  };
  return (
    <form onSubmit={submit} aria-labelledby="revoke-title">
      <h2 id="revoke-title">Revoke a token</h2>
      <div class="field">
        <label for="revoke-what">Token id (jti) or the token itself</label>
        <input id="revoke-what" required autocomplete="off" value={what()} onInput={(e) => setWhat(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled={busy()}>
        Revoke
      </button>
      <Show when={result()}>
        {(r) => (
          <p class={r().ok ? 'ok' : 'bad'} role="status" data-testid="revoke-result">
            {r().text}
          </p>
        )}
      </Show>
    </form>
  );
}
