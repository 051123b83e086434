import { createSignal, Show } from 'solid-js';
import { setToken } from '../../auth';

export interface Minted {
  token: string;
  jti: string;
  exp: number;
  sub: string;
  scope: string[];
}

/**
 * A minted token, shown once: it is kept nowhere (not in storage, not on the server in clear), so
 * the person copies it now. "Hide" forgets it.
 */
export function MintedToken(props: { minted: Minted; onHide: () => void; id: string }) {
  const [copied, setCopied] = createSignal('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.minted.token);
      setCopied('copied');
    } catch (err) {
      setCopied(`could not copy (${String(err)}): select the text and copy it`);
    }
  };
  return (
    <div class="minted" role="status" data-testid="minted">
      <p class="ok">
        Minted a token for {props.minted.sub} with scope {props.minted.scope.join(' ')}, jti <code data-testid="minted-jti">{props.minted.jti}</code>, expires{' '}
        {new Date(props.minted.exp * 1000).toISOString()}.
      </p>
      <p>It is shown once and kept nowhere: copy it now.</p>
      <label for={props.id}>Minted token</label>
      <textarea id={props.id} readonly rows="3" data-testid="minted-token" onFocus={(e) => e.currentTarget.select()}>
        {props.minted.token}
      </textarea>
      <p>
        <button type="button" onClick={copy}>
          Copy the token
        </button>{' '}
        <button type="button" onClick={() => props.onHide()}>
          Hide it
        </button>{' '}
        <button type="button" onClick={() => setToken(props.minted.token)} title="replaces the token this tab uses (session storage)">
          Use it in this tab
        </button>{' '}
        <Show when={copied()}>
          <span role="status">{copied()}</span>
        </Show>
      </p>
    </div>
  );
}
