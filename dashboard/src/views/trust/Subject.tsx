import { For, Show } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { Loaded } from '../Loaded';
import { EventCard } from './EventCard';
import { ScorePanel } from './ScorePanel';
import { seg, StateBadge, TrustNav, useTrust, when } from './common';
import type { Evidence, Score, TrustEvent } from './types';

/** `#/trust/subjects/:id`: the score and its explanation (agents only), the events with their appeals, and the evidence. */
export function TrustSubject() {
  const params = useParams<{ id: string }>();
  const [score, reloadScore] = useTrust<Score>(() => `/score/${seg(params.id)}`);
  const [events, reloadEvents] = useTrust<{ subjectId: string; subjectType: string; events: TrustEvent[] }>(() => `/events/${seg(params.id)}`);
  const [evidence, reloadEvidence] = useTrust<Evidence>(() => `/evidence/${seg(params.id)}`);
  const nothing = (r: { kind: string; status?: number } | undefined) => r?.kind === 'error' && r.status === 404;
  return (
    <section class="trust" aria-labelledby="subject-title">
      <h1 id="subject-title">Subject {params.id}</h1>
      <TrustNav />
      <Show when={events()?.kind === 'ok' && events()}>
        {(r) => <p class="lede">Recorded as {(r() as { value: { subjectType: string } }).value.subjectType}.</p>}
      </Show>

      <h2>Score</h2>
      <ScorePanel result={score()} />

      <h2>Events</h2>
      <Show when={!nothing(events() as never)} fallback={<p data-testid="no-events">No event is recorded about {params.id}.</p>}>
        <Loaded result={events()} what="the subject's events (scope trust:read)">
          {(v) => (
            <div class="events" data-testid="events">
              <For each={v.events}>
                {(e) => (
                  <EventCard
                    event={e}
                    changed={() => {
                      reloadScore();
                      reloadEvidence();
                    }}
                  />
                )}
              </For>
            </div>
          )}
        </Loaded>
      </Show>

      <h2>Evidence: contract breaches</h2>
      <Show when={!nothing(evidence() as never)} fallback={<p>Nothing is recorded about {params.id}.</p>}>
        <Loaded result={evidence()} what="the subject's evidence (scope trust:read)">
          {(v) => (
            <>
              <p>
                <small>{v.notice}</small>
              </p>
              <table class="trust-table" data-testid="breaches">
                <thead>
                  <tr>
                    <th scope="col">Breach</th>
                    <th scope="col">By</th>
                    <th scope="col">State</th>
                    <th scope="col">What</th>
                    <th scope="col">Contract</th>
                    <th scope="col">Reported</th>
                  </tr>
                </thead>
                <tbody>
                  <For
                    each={v.breaches}
                    fallback={
                      <tr>
                        <td colspan="6">No breach of a contract naming {params.id}.</td>
                      </tr>
                    }
                  >
                    {(b) => (
                      <tr data-breach={b.id}>
                        <td>
                          <code>{b.id}</code>
                        </td>
                        <td>{b.party}</td>
                        <td>
                          <StateBadge state={b.state} />
                        </td>
                        <td>
                          {b.description}
                          {b.term ? ` (term ${b.term})` : ''}
                        </td>
                        <td>
                          <A href={`/trust/contracts/${seg(b.contractId)}`}>{b.contractId}</A>
                        </td>
                        <td>{when(b.reportedAt)}</td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </>
          )}
        </Loaded>
      </Show>
      <p>
        <button
          type="button"
          onClick={() => {
            reloadScore();
            reloadEvents();
            reloadEvidence();
          }}
        >
          Refresh
        </button>
      </p>
    </section>
  );
}
