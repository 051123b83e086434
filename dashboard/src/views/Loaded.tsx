import { Match, Switch, type JSX } from 'solid-js';
import type { ApiResult } from '../api';
import { NotPermitted, Unknown } from './Unknown';

/**
 * One read's states, each said plainly: loading; not permitted (the token's scopes); the listener
 * unreachable (UNKNOWN with the reason, never an empty table passed off as "nothing"); another error;
 * or the value.
 */
export function Loaded<T>(props: { result: ApiResult<T> | undefined; what: string; children: (value: T) => JSX.Element }) {
  const r = () => props.result;
  return (
    <Switch fallback={<p role="status">Loading {props.what}…</p>}>
      <Match when={r()?.kind === 'not-permitted'}>
        <NotPermitted what={props.what} message={(r() as { message: string }).message} />
      </Match>
      <Match when={r()?.kind === 'unreachable' || (r()?.kind === 'error' && (r() as { status: number }).status === 503)}>
        <p>
          {props.what}: <Unknown reason={(r() as { message: string }).message} />
        </p>
      </Match>
      <Match when={r()?.kind === 'error'}>
        <p class="bad" role="alert">
          {props.what} could not be read: {(r() as { message: string }).message}
        </p>
      </Match>
      {/* keyed: a new answer (a refetch, another id) renders afresh; the children read their value once. */}
      <Match when={r()?.kind === 'ok' ? (r() as { value: T }) : undefined} keyed>
        {(ok) => props.children(ok.value)}
      </Match>
    </Switch>
  );
}
