import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { RelativeTime } from '../../time';
import { stateClass } from './TaskTable';
import type { AttemptRow } from './types';

/**
 * Every attempt of a task, first to last: when it started and ended, how, and a link to its signed
 * trace (the attempt's record on the execution chain). An attempt number with no row ended without
 * a result: its worker stopped answering and the lease was taken back, or it is running now.
 */
export function Attempts(props: { history: AttemptRow[]; attempts: number; running: boolean }) {
  const rows = () => {
    const byNumber = new Map(props.history.map((a) => [a.attempt, a]));
    return Array.from({ length: props.attempts }, (_, i) => ({ n: i + 1, a: byNumber.get(i + 1) }));
  };
  const unended = (n: number) => (props.running && n === props.attempts ? 'running now' : 'no result: its worker stopped answering (lease taken back)');
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts</h2>
      <table class="attempts" data-testid="attempts">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Started</th>
            <th scope="col">Ended</th>
            <th scope="col">Outcome</th>
            <th scope="col">Status</th>
            <th scope="col">Error</th>
            <th scope="col">Signed trace</th>
          </tr>
        </thead>
        <tbody>
          <For
            each={rows()}
            fallback={
              <tr>
                <td colspan="7">No attempt yet.</td>
              </tr>
            }
          >
            {(r) => (
              <tr data-attempt={r.n} data-outcome={r.a?.outcome ?? ''}>
                <td>{r.n}</td>
                {r.a === undefined ? (
                  <td colspan="6">{unended(r.n)}</td>
                ) : (
                  <>
                    <td>
                      <RelativeTime iso={r.a.startedAt} />
                    </td>
                    <td>
                      <RelativeTime iso={r.a.endedAt} />
                    </td>
                    <td class={`state ${stateClass(r.a.outcome === 'success' ? 'succeeded' : 'failed')}`}>{r.a.outcome}</td>
                    <td>{r.a.status !== null ? `HTTP ${r.a.status}` : '—'}</td>
                    <td>{r.a.error ?? '—'}</td>
                    <td>{r.a.traceId !== null ? <A href={`/records/${encodeURIComponent(r.a.traceId)}`}>{r.a.traceId}</A> : 'not recorded'}</td>
                  </>
                )}
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </section>
  );
}
