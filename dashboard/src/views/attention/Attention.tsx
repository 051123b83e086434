import { createSignal, onCleanup, Show } from 'solid-js';
import { connection, onLive } from '../../live';
import { throttled } from './throttle';
import { AttentionList } from './AttentionList';
import { AuthorityList } from './AuthorityList';
import './attention.css';

/**
 * `#/attention`: what needs a person's attention and what authority each subject exercised. Both
 * re-read when the socket says a record was appended, at most once a second.
 */
export function Attention() {
  const [tick, setTick] = createSignal(0);
  const [updated, setUpdated] = createSignal<string | null>(null);
  const reread = throttled(() => {
    setTick((n) => n + 1);
    setUpdated(new Date().toLocaleTimeString());
  }, 1000);
  onCleanup(onLive('trace.appended', reread));
  return (
    <section aria-labelledby="attention-view-title">
      <h1 id="attention-view-title">Attention and authority</h1>
      <p class="live-note" data-testid="attention-live">
        <Show
          when={connection().state === 'open'}
          fallback={<>Not live: {connection().reason || 'the live socket is not open'}. These lists are as read when the page opened.</>}
        >
          Live: both lists are read again when a record is appended (at most once a second; tokens issued under a tenant get no live events).
          <Show when={updated()}>{(u) => <> Last re-read at {u()}.</>}</Show>
        </Show>
      </p>
      <AttentionList tick={tick()} />
      <AuthorityList tick={tick()} />
    </section>
  );
}
