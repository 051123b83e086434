import { createSignal, For, Show } from 'solid-js';
import { apiOf } from '../../api';
import { scopesOf, tokenRequest } from './scope-input';
import { failureText } from './call';
import { MintedToken, type Minted } from './MintedToken';
import type { Capabilities } from './capabilities';

/**
 * Mint with the pasted token (`POST /auth/token`, bearer): attenuation only. The form offers the
 * scopes the token holds; a narrower entry (`execution:read` under `execution:*`) can be typed, and
 * anything beyond the token's own is refused by the server, whose refusal is shown as it came.
 */
export function MintNarrower(props: { caps: Capabilities }) {
  const [sub, setSub] = createSignal(`${props.caps.sub}-delegate`);
  const [chosen, setChosen] = createSignal<string[]>([]);
  const [extra, setExtra] = createSignal('');
  const [expiresIn, setExpiresIn] = createSignal('15m');
  const [aud, setAud] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [refusal, setRefusal] = createSignal('');
  const [minted, setMinted] = createSignal<Minted | null>(null);

  const toggle = (s: string, on: boolean) => setChosen((c) => (on ? [...c, s] : c.filter((x) => x !== s)));
  const submit = async (e: Event) => {
    e.preventDefault();
    const scope = [...new Set([...chosen(), ...scopesOf(extra())])];
    setRefusal('');
    setMinted(null);
    if (scope.length === 0) return void setRefusal('Choose or type at least one scope.');
    setBusy(true);
    const body = tokenRequest({ sub: sub(), scope, expiresIn: expiresIn(), aud: aud() });
    const r = await apiOf<{ token: string; jti: string; exp: number }>('token', '/auth/token', { method: 'POST', body });
    setBusy(false);
    if (r.kind === 'ok') setMinted({ ...r.value, sub: body.sub, scope });
    else setRefusal(failureText(r.kind === 'error' ? r.status : r.kind === 'unreachable' ? null : 403, r.message));
  };

  return (
    <form class="mint" onSubmit={submit} aria-labelledby="mint-narrower-title">
      <h3 id="mint-narrower-title">With your token (narrower only)</h3>
      <p>A token can hand on only authority it holds itself: pick from your token's scopes, or type narrower ones.</p>
      <div class="field">
        <label for="mint-sub">Subject (sub)</label>
        <input id="mint-sub" required value={sub()} onInput={(e) => setSub(e.currentTarget.value)} />
      </div>
      <fieldset>
        <legend>Scopes your token holds</legend>
        <For each={props.caps.scope} fallback={<p>Your token holds no scope.</p>}>
          {(s) => (
            <label class="scope">
              <input type="checkbox" name="mint-scope" value={s} checked={chosen().includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />{' '}
              <code>{s}</code>
            </label>
          )}
        </For>
      </fieldset>
      <div class="field">
        <label for="mint-extra">Narrower scopes (space separated)</label>
        <input id="mint-extra" placeholder="e.g. execution:read" value={extra()} onInput={(e) => setExtra(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="mint-expires">Expires in</label>
        <input id="mint-expires" required value={expiresIn()} onInput={(e) => setExpiresIn(e.currentTarget.value)} />{' '}
        <small>30s, 15m, 8h, 7d (at most 365d)</small>
      </div>
      <div class="field">
        <label for="mint-aud">Audience (optional)</label>
        <input id="mint-aud" value={aud()} onInput={(e) => setAud(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled={busy()}>
        Mint a narrower token
      </button>
      <Show when={refusal()}>
        <p class="bad" role="alert" data-testid="mint-refusal">
          {refusal()}
        </p>
      </Show>
      <Show when={minted()}>{(m) => <MintedToken minted={m()} onHide={() => setMinted(null)} id="minted-narrower" />}</Show>
    </form>
  );
}
