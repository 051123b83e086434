import { createSignal, For, Show } from 'solid-js';
import { apiOf } from '../../api';
import { describe, OutcomeLine, ProofLink, seg, StateBadge, when, type Outcome } from './common';
import type { Appeal, TrustEvent } from './types';

/**
 * One event: the fact, the proof it points at (an execution links to its record), its appeals, and
 * what a person can do: appeal it (scope trust:appeal), decide a pending appeal (trust:manage).
 */
export function EventCard(props: { event: TrustEvent; changed: () => void }) {
  const [appeals, setAppeals] = createSignal<Appeal[]>(props.event.appeals ?? []);
  const [reason, setReason] = createSignal('');
  const [outcome, setOutcome] = createSignal<Outcome>(null);
  const pending = () => appeals().some((a) => a.state === 'pending');
  const upheld = () => appeals().some((a) => a.state === 'upheld');

  // After an action, read the appeals again from their own route rather than guessing their state.
  const reloadAppeals = async () => {
    const r = await apiOf<{ appeals: Appeal[] }>('trust', `/events/${seg(props.event.id)}/appeals`);
    if (r.kind === 'ok') setAppeals(r.value.appeals);
    props.changed();
  };
  const appeal = async (e: Event) => {
    e.preventDefault();
    const r = await apiOf('trust', `/events/${seg(props.event.id)}/appeal`, { method: 'POST', body: { reason: reason() } });
    setOutcome(describe(r, 'Appeal recorded: it is pending until someone with trust:manage decides it.', 'trust:appeal'));
    if (r.kind === 'ok') {
      setReason('');
      await reloadAppeals();
    }
  };

  return (
    <article class="event-card" id={`event-${props.event.id}`} data-event={props.event.id}>
      <h3>
        <span class="kind">{props.event.kind}</span>{' '}
        <small>
          <code>{props.event.id}</code>
        </small>
      </h3>
      <Show when={props.event.summary}>
        <p>{props.event.summary}</p>
      </Show>
      <p>
        <small>
          Proof: <ProofLink proof={props.event.proof} /> · recorded by {props.event.recordedBy}, {when(props.event.recordedAt)}
        </small>
      </p>
      <Show when={appeals().length > 0}>
        <h4>Appeals</h4>
        <ul class="appeals">
          <For each={appeals()}>{(a) => <AppealItem appeal={a} decided={reloadAppeals} />}</For>
        </ul>
      </Show>
      <Show
        when={!pending() && !upheld()}
        fallback={
          <p>
            <small>
              {upheld()
                ? 'An appeal was upheld: this event no longer counts in any score.'
                : 'An appeal is pending: it must be decided before another can be made.'}
            </small>
          </p>
        }
      >
        <form class="inline-form" onSubmit={appeal}>
          <label for={`appeal-${props.event.id}`}>Appeal this event (needs trust:appeal): grounds</label>
          <textarea id={`appeal-${props.event.id}`} rows="2" required maxlength="2048" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} />
          <button type="submit">Appeal</button>
        </form>
      </Show>
      <OutcomeLine outcome={outcome()} />
    </article>
  );
}

function AppealItem(props: { appeal: Appeal; decided: () => Promise<void> }) {
  const [reason, setReason] = createSignal('');
  const [outcome, setOutcome] = createSignal<Outcome>(null);
  const decide = async (decision: 'upheld' | 'rejected') => {
    const r = await apiOf('trust', `/appeals/${seg(props.appeal.id)}/decide`, { method: 'POST', body: { decision, reason: reason() } });
    setOutcome(describe(r, `Appeal ${decision}.`, 'trust:manage'));
    if (r.kind === 'ok') await props.decided();
  };
  const a = () => props.appeal;
  return (
    <li data-appeal={a().id}>
      <StateBadge state={a().state} /> <code>{a().id}</code> by {a().appellant}, {when(a().createdAt)}: “{a().reason}”
      <Show when={a().decidedBy}>
        <br />
        <small>
          Decided by {a().decidedBy}, {when(a().decidedAt)}: {a().decisionReason}
        </small>
      </Show>
      <Show when={a().state === 'pending'}>
        <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
          <label for={`decide-${a().id}`}>Decide (needs trust:manage): reason</label>
          <input id={`decide-${a().id}`} maxlength="2048" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} />
          <button type="button" disabled={reason().trim() === ''} onClick={() => decide('upheld')}>
            Uphold
          </button>
          <button type="button" disabled={reason().trim() === ''} onClick={() => decide('rejected')}>
            Reject
          </button>
        </form>
      </Show>
      <OutcomeLine outcome={outcome()} />
    </li>
  );
}
