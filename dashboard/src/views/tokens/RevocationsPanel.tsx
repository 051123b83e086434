import { createSignal, For, onCleanup, Show } from 'solid-js';
import { connection, onLive } from '../../live';

interface Seen {
  jti: string;
  exp: number;
  at: string;
}

/**
 * Revocations as the socket announces them, since this page opened. The socket sends them only to
 * tokens granting `auth:token:revoke` (docs/DASHBOARD.md, "The socket"); others are told so, not
 * shown an empty list that would look like "none".
 */
export function RevocationsPanel(props: { receives: boolean }) {
  const [seen, setSeen] = createSignal<Seen[]>([]);
  onCleanup(onLive('revocation', (r) => setSeen((s) => [{ jti: r.jti, exp: r.exp, at: new Date().toISOString() }, ...s].slice(0, 200))));
  return (
    <section aria-labelledby="revocations-title">
      <h2 id="revocations-title">Revocations, live</h2>
      <Show
        when={props.receives}
        fallback={
          <p class="not-permitted" data-testid="revocations-not-sent">
            This token does not grant auth:token:revoke, so the live socket sends it no revocations.
          </p>
        }
      >
        <p>
          Tokens revoked anywhere in the suite since this page opened.{' '}
          <Show when={connection().state !== 'open'}>
            <span class="warn">Not live: {connection().reason || 'the socket is not open'}.</span>
          </Show>
        </p>
        <table class="revocations" data-testid="revocations">
          <thead>
            <tr>
              <th scope="col">jti</th>
              <th scope="col">seen at</th>
              <th scope="col">would have expired</th>
            </tr>
          </thead>
          <tbody>
            <For
              each={seen()}
              fallback={
                <tr>
                  <td colspan="3">None since this page opened.</td>
                </tr>
              }
            >
              {(r) => (
                <tr data-jti={r.jti}>
                  <td>{r.jti}</td>
                  <td>{r.at}</td>
                  <td>{new Date(r.exp * 1000).toISOString()}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </Show>
    </section>
  );
}
