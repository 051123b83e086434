import { createSignal, For, Show } from 'solid-js';
import { useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { Loaded } from '../Loaded';
import { describe, OutcomeLine, seg, StateBadge, TrustNav, useTrust, when, type Outcome } from './common';
import type { Dispute } from './types';

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** `#/trust/disputes/:id`: the question, its opinions, the last arbitration per position, the decision; arbitrate or decide it. */
export function TrustDispute() {
  const params = useParams<{ id: string }>();
  const [dispute, reload] = useTrust<Dispute>(() => `/disputes/${seg(params.id)}`);
  const [outcome, setOutcome] = createSignal<Outcome>(null);
  const [decision, setDecision] = createSignal('');
  const [reason, setReason] = createSignal('');
  const act = async (path: string, body: unknown, done: string, scope: string) => {
    const r = await apiOf('trust', `/disputes/${seg(params.id)}/${path}`, { method: 'POST', body });
    setOutcome(describe(r, done, scope));
    if (r.kind === 'ok') reload();
  };
  return (
    <section class="trust" aria-labelledby="dispute-title">
      <h1 id="dispute-title">
        Dispute <code>{params.id}</code>
      </h1>
      <TrustNav />
      <Loaded result={dispute()} what="the dispute (scope trust:read)">
        {(d) => (
          <div data-testid="dispute" data-state={d.state}>
            <h2>
              {d.title} <StateBadge state={d.state} />
            </h2>
            <p>
              {d.question}
              {d.irreversible ? ' — irreversible: arbitration always sends it to a person.' : ''}
            </p>
            <p>
              <small>
                Opened by {d.createdBy}, {when(d.createdAt)}; updated {when(d.updatedAt)}.
              </small>
            </p>
            <table class="trust-table">
              <caption>Opinions</caption>
              <thead>
                <tr>
                  <th scope="col">Participant</th>
                  <th scope="col">Model family</th>
                  <th scope="col">Position</th>
                  <th scope="col">Confidence</th>
                  <th scope="col">Rationale</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={d.opinions}
                  fallback={
                    <tr>
                      <td colspan="5">No opinion yet.</td>
                    </tr>
                  }
                >
                  {(o) => (
                    <tr>
                      <td>{o.participant}</td>
                      <td>{o.modelFamily ?? <small>unknown (counted as independent)</small>}</td>
                      <td>{o.position}</td>
                      <td>{o.confidence ?? 1}</td>
                      <td>{o.rationale ?? ''}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <Show when={d.arbitration}>
              {(a) => (
                <div data-testid="arbitration">
                  <h3>
                    Arbitration ({a().method}), {when(a().at)} by {a().by}: {a().result}
                  </h3>
                  <p>{a().reason}</p>
                  <table class="trust-table">
                    <thead>
                      <tr>
                        <th scope="col">Position</th>
                        <th scope="col">Share</th>
                        <th scope="col">Counted weight</th>
                        <th scope="col">Lost to same-family discount</th>
                      </tr>
                    </thead>
                    <tbody>
                      <For each={a().positions}>
                        {(p) => (
                          <tr>
                            <td>{p.position}</td>
                            <td>{pct(p.share)}</td>
                            <td>{p.countedWeight}</td>
                            <td>{p.discount}</td>
                          </tr>
                        )}
                      </For>
                    </tbody>
                  </table>
                </div>
              )}
            </Show>
            <Show when={d.decision}>
              {(x) => (
                <p data-testid="decision">
                  <strong>Decided: {x().outcome}</strong> by {x().decidedBy}, {when(x().at)}: {x().reason}
                </p>
              )}
            </Show>
            <Show when={d.state === 'pending'}>
              <p>
                <button type="button" onClick={() => act('arbitrate', {}, 'Arbitrated.', 'trust:arbitrate')}>
                  Arbitrate the stored opinions
                </button>{' '}
                <small>(needs trust:arbitrate)</small>
              </p>
            </Show>
            <Show when={d.state === 'pending' || d.state === 'escalated'}>
              <form
                class="stack-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act('decide', { outcome: decision(), reason: reason() }, 'Decision recorded.', 'trust:manage');
                }}
              >
                <h3>
                  Decide <small>(needs trust:manage)</small>
                </h3>
                <label for="dispute-outcome">Outcome</label>
                <input id="dispute-outcome" required maxlength="512" value={decision()} onInput={(e) => setDecision(e.currentTarget.value)} />
                <label for="dispute-reason">Reason</label>
                <input id="dispute-reason" required maxlength="2048" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} />
                <button type="submit">Record the decision</button>
              </form>
            </Show>
          </div>
        )}
      </Loaded>
      <OutcomeLine outcome={outcome()} />
    </section>
  );
}
