import { createSignal, Show } from 'solid-js';
import { errorText, failureText, postToken } from './call';
import { scopesOf, tokenRequest } from './scope-input';
import { MintedToken, type Minted } from './MintedToken';

/**
 * Mint any token with the admin key (`POST /auth/token`, `X-Suite-Admin-Key`). The key is read from
 * the field for this one request and the field is emptied as it is sent: it is never stored (not in
 * session storage, not in a signal that outlives the request) and never sent with any other call.
 */
export function MintWithAdminKey() {
  let keyField!: HTMLInputElement;
  const [sub, setSub] = createSignal('');
  const [scope, setScope] = createSignal('');
  const [expiresIn, setExpiresIn] = createSignal('15m');
  const [busy, setBusy] = createSignal(false);
  const [refusal, setRefusal] = createSignal('');
  const [minted, setMinted] = createSignal<Minted | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const adminKey = keyField.value;
    keyField.value = '';
    setRefusal('');
    setMinted(null);
    const scopes = scopesOf(scope());
    if (!adminKey || scopes.length === 0) return void setRefusal('Give the admin key and at least one scope.');
    setBusy(true);
    const body = tokenRequest({ sub: sub(), scope: scopes, expiresIn: expiresIn(), aud: '' });
    const r = await postToken('/auth/token', body, { adminKey });
    setBusy(false);
    if (r.kind === 'unreachable') return void setRefusal(failureText(null, r.message));
    if (r.status !== 200) return void setRefusal(failureText(r.status, errorText(r.status, r.body)));
    const v = r.body as { token: string; jti: string; exp: number };
    setMinted({ token: v.token, jti: v.jti, exp: v.exp, sub: body.sub, scope: scopes });
  };

  return (
    <form class="mint" onSubmit={submit} aria-labelledby="mint-admin-title" autocomplete="off">
      <h3 id="mint-admin-title">With the admin key (any scope)</h3>
      <p>The key is used for this one request and then cleared; it is not stored anywhere.</p>
      <div class="field">
        <label for="admin-sub">Subject (sub)</label>
        <input id="admin-sub" required value={sub()} onInput={(e) => setSub(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="admin-scope">Scopes (space separated)</label>
        <input id="admin-scope" required placeholder="e.g. execution:read audit:read" value={scope()} onInput={(e) => setScope(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="admin-expires">Expires in</label>
        <input id="admin-expires" required value={expiresIn()} onInput={(e) => setExpiresIn(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="admin-key">Admin key</label>
        <input id="admin-key" ref={keyField} type="password" autocomplete="off" required />
      </div>
      <button type="submit" disabled={busy()}>
        Mint with the admin key
      </button>
      <Show when={refusal()}>
        <p class="bad" role="alert" data-testid="admin-refusal">
          {refusal()}
        </p>
      </Show>
      <Show when={minted()}>{(m) => <MintedToken minted={m()} onHide={() => setMinted(null)} id="minted-admin" />}</Show>
    </form>
  );
}
