import { createEffect, createSignal, For, Show, type ParentProps } from 'solid-js';
import { ROUTES } from './routes';
import { A } from '@solidjs/router';
import { setToken, token } from './auth';
import { connect, connection, who } from './live';

export function Layout(props: ParentProps) {
  const [draft, setDraft] = createSignal('');
  createEffect(() => connect(token()));
  let main!: HTMLElement;
  // The first thing Tab reaches: past the navigation straight to the view. A native listener on the
  // link (on:click, not Solid's delegated onClick) cancels the click before the hash router sees it,
  // so "#main" is never taken for a route.
  const skip = (e: MouseEvent) => {
    e.preventDefault();
    main.focus();
  };
  return (
    <>
      <a class="skip-link" href="#main" on:click={skip}>
        Skip to content
      </a>
      <header>
        <strong>Agent Authority Suite</strong>
        <nav aria-label="views">
          <For each={ROUTES.filter((r) => r.label !== undefined)}>
            {(r) => (
              <A href={r.path} end={r.path === '/'}>
                {r.label}
              </A>
            )}
          </For>
        </nav>
        <Show
          when={token()}
          fallback={
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setToken(draft());
                setDraft('');
              }}
            >
              <label for="token">Token</label>
              <input
                id="token"
                type="password"
                autocomplete="off"
                placeholder="paste a capability token"
                value={draft()}
                onInput={(e) => setDraft(e.currentTarget.value)}
              />
              <button type="submit">Use</button>
            </form>
          }
        >
          <span class="who" data-testid="who">
            {who() ? `${who()!.sub} (${who()!.scope.join(' ') || 'no scope'})` : ''}{' '}
            <span class={`conn ${connection().state}`} title={connection().reason} data-testid="connection">
              live: {connection().state}
            </span>
          </span>
          <button type="button" onClick={() => setToken(null)}>
            Forget token
          </button>
        </Show>
      </header>
      <main id="main" tabindex="-1" ref={main}>
        {props.children}
      </main>
    </>
  );
}
