import { For, Show } from 'solid-js';
import type { ApiResult } from '../../api';
import { Loaded } from '../Loaded';
import type { Contribution, Exclusion, Score } from './types';

/** Takes the reader to an event's card on this page, with its appeal form focused (hash links would change the route). */
export function jumpToEvent(id: string): void {
  const card = document.getElementById(`event-${id}`);
  card?.scrollIntoView({ block: 'center' });
  (card?.querySelector('textarea, button') as HTMLElement | null)?.focus();
}

function RecordRef(props: { item: Contribution | Exclusion }) {
  return (
    <Show
      when={props.item.source === 'event'}
      fallback={
        <span>
          breach <code>{props.item.id}</code>
        </span>
      }
    >
      <button type="button" class="link" onClick={() => jumpToEvent(props.item.id)} title="go to this event and its appeals">
        event <code>{props.item.id}</code>
      </button>
    </Show>
  );
}

/** `GET /score/:id`: the advisory score and every record that moved it or was left out, each linked to its event and appeal. */
export function ScorePanel(props: { result: ApiResult<Score> | undefined }) {
  const notFound = () => props.result?.kind === 'error' && props.result.status === 404;
  return (
    <Show
      when={!notFound()}
      fallback={<p data-testid="no-score">No score: {(props.result as { message: string }).message}. Scores are given to agents only.</p>}
    >
      <Loaded result={props.result} what="the score (scope trust:read)">
        {(s) => (
          <div data-testid="score">
            <p class="score-line">
              <span class="score">{s.score}</span> advisory, method {s.method}: baseline {s.baseline}
              {s.unclamped !== s.score ? `, ${s.unclamped} before clamping to ${s.methodDetails.range.join('..')}` : ''}.
            </p>
            <table class="trust-table">
              <caption>Records that moved it</caption>
              <thead>
                <tr>
                  <th scope="col">Record</th>
                  <th scope="col">Why</th>
                  <th scope="col">Points</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={s.contributions}
                  fallback={
                    <tr>
                      <td colspan="3">None: the score is the baseline.</td>
                    </tr>
                  }
                >
                  {(c) => (
                    <tr data-contribution={c.id}>
                      <td>
                        <RecordRef item={c} />
                      </td>
                      <td>{c.reason}</td>
                      <td class={c.delta < 0 ? 'bad' : c.delta > 0 ? 'ok' : ''}>{c.delta > 0 ? `+${c.delta}` : c.delta}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <Show when={s.excluded.length > 0}>
              <table class="trust-table">
                <caption>Records left out</caption>
                <thead>
                  <tr>
                    <th scope="col">Record</th>
                    <th scope="col">Why not counted</th>
                  </tr>
                </thead>
                <tbody>
                  <For each={s.excluded}>
                    {(x) => (
                      <tr data-excluded={x.id}>
                        <td>
                          <RecordRef item={x} />
                        </td>
                        <td>{x.reason}</td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </Show>
            <p>
              <small>
                Event kinds weigh{' '}
                {Object.entries(s.methodDetails.eventWeights)
                  .map(([k, w]) => `${k} ${w > 0 ? '+' : ''}${w}`)
                  .join(', ')}
                ; an agent's breach {s.methodDetails.breachWeights.open} while open, {s.methodDetails.breachWeights.remediated} once remediated. A breach by the
                operator is never charged to the agent. To contest a point, appeal its event from the event's card below.
              </small>
            </p>
          </div>
        )}
      </Loaded>
    </Show>
  );
}
