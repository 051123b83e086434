import { createResource, createSignal, For, Match, onCleanup, Show, Switch } from 'solid-js';
import { A } from '@solidjs/router';
import { api } from '../api';
import { token } from '../auth';
import { onTrace } from '../live';
import { lastVerification, verifyChain, verifying } from '../chain-state';
import { NotPermitted } from './Unknown';
import { RelativeTime } from '../time';

interface Row {
  seq: number;
  id: string;
  subject: string;
  outcome: string;
  action?: string;
  timestamp?: string;
}

export function Chain() {
  const [page] = createResource(token, () => api<{ records: Row[] }>('/executions?limit=50'));
  const [live, setLive] = createSignal<Row[]>([]);
  onCleanup(onTrace((t) => setLive((rows) => [{ seq: t.seq, id: t.id, subject: t.subject, outcome: t.outcome }, ...rows].slice(0, 200))));
  const rows = () => {
    const p = page();
    const loaded = p?.kind === 'ok' ? p.value.records : [];
    const seen = new Set(live().map((r) => r.id));
    return [...live(), ...loaded.filter((r) => !seen.has(r.id))].sort((a, b) => b.seq - a.seq);
  };
  return (
    <section aria-labelledby="chain-title">
      <h1 id="chain-title">Trace chain</h1>
      <p>
        <button type="button" onClick={verifyChain} disabled={verifying()}>
          Verify the chain
        </button>{' '}
        <Show when={verifying()}>
          <span role="status">verifying…</span>
        </Show>
        <Show when={!verifying() && lastVerification()}>
          {(v) => (
            <span class={v().ok ? 'ok' : 'bad'} role="status" data-testid="verify-result">
              {v().text}
            </span>
          )}
        </Show>
      </p>
      <Switch>
        <Match when={page()?.kind === 'not-permitted'}>
          <NotPermitted what="the trace chain (scope execution:read)" message={(page() as { message: string }).message} />
        </Match>
        <Match when={page()?.kind === 'error' || page()?.kind === 'unreachable'}>
          <p class="bad">The chain could not be read: {(page() as { message: string }).message}</p>
        </Match>
        <Match when={page()?.kind === 'ok'}>
          <table class="chain">
            <thead>
              <tr>
                <th scope="col">Seq</th>
                <th scope="col">Record</th>
                <th scope="col">Subject</th>
                <th scope="col">Action</th>
                <th scope="col">Outcome</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={rows()}
                fallback={
                  <tr>
                    <td colspan="6">No records yet.</td>
                  </tr>
                }
              >
                {(r) => (
                  <tr data-seq={r.seq} data-id={r.id}>
                    <td>{r.seq}</td>
                    <td>
                      <A href={`/records/${r.id}`}>{r.id}</A>
                    </td>
                    <td>{r.subject}</td>
                    <td>{r.action ?? '…'}</td>
                    <td>{r.outcome}</td>
                    <td>{r.timestamp ? <RelativeTime iso={r.timestamp} /> : 'just now'}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </Match>
      </Switch>
    </section>
  );
}
