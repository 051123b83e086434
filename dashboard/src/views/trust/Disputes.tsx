import { createSignal, For } from 'solid-js';
import { A, useNavigate } from '@solidjs/router';
import { apiOf } from '../../api';
import { Loaded } from '../Loaded';
import { describe, OutcomeLine, seg, StateBadge, TrustNav, useTrust, when, type Outcome } from './common';
import type { Dispute, Opinion } from './types';

/** Opinions typed one a line as `participant, model family, position` (the family may be left empty). */
export function parseOpinions(text: string): Opinion[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((line) => {
      const [participant = '', family = '', ...rest] = line.split(',').map((p) => p.trim());
      return { participant, ...(family !== '' ? { modelFamily: family } : {}), position: rest.join(', ') };
    });
}

/** `#/trust/disputes`: every dispute with its state, and a form to open one (scope trust:arbitrate). */
export function TrustDisputes() {
  const [list, reload] = useTrust<{ disputes: Dispute[] }>(() => '/disputes');
  return (
    <section class="trust" aria-labelledby="disputes-title">
      <h1 id="disputes-title">Disputes</h1>
      <TrustNav />
      <p class="lede">
        Questions with opinions, arbitrated by a fixed rule that discounts agreement within one model family; irreversible questions and those without consensus
        go to a person.
      </p>
      <Loaded result={list()} what="disputes (scope trust:read)">
        {(v) => (
          <table class="trust-table" data-testid="disputes">
            <thead>
              <tr>
                <th scope="col">Dispute</th>
                <th scope="col">State</th>
                <th scope="col">Question</th>
                <th scope="col">Opinions</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={v.disputes}
                fallback={
                  <tr>
                    <td colspan="5">No dispute yet.</td>
                  </tr>
                }
              >
                {(d) => (
                  <tr data-dispute={d.id}>
                    <td>
                      <A href={`/trust/disputes/${seg(d.id)}`}>{d.title}</A>
                      {d.irreversible ? <small> (irreversible)</small> : ''}
                    </td>
                    <td>
                      <StateBadge state={d.state} />
                    </td>
                    <td>{d.question}</td>
                    <td>{d.opinions.length}</td>
                    <td>{when(d.updatedAt)}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        )}
      </Loaded>
      <OpenDispute opened={reload} />
    </section>
  );
}

function OpenDispute(props: { opened: () => void }) {
  const [title, setTitle] = createSignal('');
  const [question, setQuestion] = createSignal('');
  const [irreversible, setIrreversible] = createSignal(false);
  const [opinions, setOpinions] = createSignal('');
  const [outcome, setOutcome] = createSignal<Outcome>(null);
  const navigate = useNavigate();
  const open = async (e: Event) => {
    e.preventDefault();
    const r = await apiOf<Dispute>('trust', '/disputes', {
      method: 'POST',
      body: { title: title(), question: question(), irreversible: irreversible(), opinions: parseOpinions(opinions()) },
    });
    setOutcome(describe(r, 'Dispute opened.', 'trust:arbitrate'));
    if (r.kind === 'ok') {
      props.opened();
      navigate(`/trust/disputes/${seg(r.value.id)}`);
    }
  };
  return (
    <form class="stack-form" onSubmit={open} aria-labelledby="open-dispute">
      <h2 id="open-dispute">
        Open a dispute <small>(needs trust:arbitrate)</small>
      </h2>
      <label for="dispute-title">Title</label>
      <input id="dispute-title" required maxlength="256" value={title()} onInput={(e) => setTitle(e.currentTarget.value)} />
      <label for="dispute-question">Question</label>
      <input id="dispute-question" required maxlength="2048" value={question()} onInput={(e) => setQuestion(e.currentTarget.value)} />
      <label>
        <input type="checkbox" checked={irreversible()} onChange={(e) => setIrreversible(e.currentTarget.checked)} /> Irreversible (a person always decides)
      </label>
      <label for="dispute-opinions">Opinions, one a line: participant, model family (may be empty), position</label>
      <textarea id="dispute-opinions" rows="3" placeholder="reviewer-1, gpt-4, refund" value={opinions()} onInput={(e) => setOpinions(e.currentTarget.value)} />
      <button type="submit">Open the dispute</button>
      <OutcomeLine outcome={outcome()} />
    </form>
  );
}
