import { createSignal, For, Show } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { Loaded } from '../Loaded';
import { describe, OutcomeLine, seg, StateBadge, TrustNav, useTrust, when, type Outcome } from './common';
import type { Contract, ContractHealth, PartyFailures } from './types';

function Failures(props: { who: string; f: PartyFailures }) {
  return (
    <tr>
      <th scope="row">{props.who}</th>
      <td>{props.f.total}</td>
      <td class={props.f.open > 0 ? 'warn' : ''}>{props.f.open}</td>
      <td>{props.f.remediated}</td>
    </tr>
  );
}

/** `#/trust/contracts/:id`: health (failures by fault), terms, breaches; suspend or reinstate it (scope trust:manage). */
export function TrustContract() {
  const params = useParams<{ id: string }>();
  const [contract, reloadContract] = useTrust<Contract>(() => `/contracts/${seg(params.id)}`);
  const [health, reloadHealth] = useTrust<ContractHealth>(() => `/contracts/${seg(params.id)}/health`);
  const [reason, setReason] = createSignal('');
  const [outcome, setOutcome] = createSignal<Outcome>(null);
  const move = async (action: 'suspend' | 'reinstate') => {
    const r = await apiOf('trust', `/contracts/${seg(params.id)}/${action}`, { method: 'POST', body: { reason: reason() } });
    setOutcome(describe(r, action === 'suspend' ? 'Contract suspended.' : 'Contract reinstated.', 'trust:manage'));
    if (r.kind === 'ok') {
      reloadContract();
      reloadHealth();
    }
  };
  return (
    <section class="trust" aria-labelledby="contract-title">
      <h1 id="contract-title">
        Contract <code>{params.id}</code>
      </h1>
      <TrustNav />
      <h2>Health</h2>
      <Loaded result={health()} what="the contract's health (scope trust:read)">
        {(h) => (
          <div data-testid="health">
            <p>{h.summary}</p>
            <table class="trust-table narrow">
              <thead>
                <tr>
                  <th scope="col">Failures by</th>
                  <th scope="col">Total</th>
                  <th scope="col">Open</th>
                  <th scope="col">Remediated</th>
                </tr>
              </thead>
              <tbody>
                <Failures who={`agent ${h.agentId}`} f={h.failures.agent} />
                <Failures who={`operator ${h.operatorId}`} f={h.failures.operator} />
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      <Loaded result={contract()} what="the contract (scope trust:read)">
        {(c) => (
          <div data-testid="contract">
            <h2>
              {c.title} <StateBadge state={c.state} />
            </h2>
            <p>
              Agent <A href={`/trust/subjects/${seg(c.agentId)}`}>{c.agentId}</A>, operator <A href={`/trust/subjects/${seg(c.operatorId)}`}>{c.operatorId}</A>.
              Made by {c.createdBy}, {when(c.createdAt)}
              <Show when={c.stateReason}>
                ; {c.state} since {when(c.stateChangedAt)}: {c.stateReason}
              </Show>
              .
            </p>
            <h3>Terms</h3>
            <dl class="fields">
              <For each={c.terms}>
                {(t) => (
                  <>
                    <dt>
                      <code>{t.id}</code>
                    </dt>
                    <dd>{t.text}</dd>
                  </>
                )}
              </For>
            </dl>
            <h3>Breaches</h3>
            <table class="trust-table" data-testid="contract-breaches">
              <thead>
                <tr>
                  <th scope="col">Breach</th>
                  <th scope="col">By</th>
                  <th scope="col">Term</th>
                  <th scope="col">State</th>
                  <th scope="col">What</th>
                  <th scope="col">Reported</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={c.breaches ?? []}
                  fallback={
                    <tr>
                      <td colspan="6">No breach reported.</td>
                    </tr>
                  }
                >
                  {(b) => (
                    <tr data-breach={b.id}>
                      <td>
                        <code>{b.id}</code>
                      </td>
                      <td>
                        {b.party}
                        {b.party === 'operator' ? <small> (never charged to the agent)</small> : ''}
                      </td>
                      <td>{b.term ?? '—'}</td>
                      <td>
                        <StateBadge state={b.state} />
                      </td>
                      <td>
                        {b.description}
                        <Show when={b.remediation}>
                          <br />
                          <small>
                            Remediated by {b.remediatedBy}, {when(b.remediatedAt)}: {b.remediation}
                          </small>
                        </Show>
                      </td>
                      <td>
                        {b.reportedBy}, {when(b.reportedAt)}
                      </td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <form
              class="stack-form"
              onSubmit={(e) => {
                e.preventDefault();
                void move(c.state === 'active' ? 'suspend' : 'reinstate');
              }}
            >
              <h3>
                {c.state === 'active' ? 'Suspend' : 'Reinstate'} this contract <small>(needs trust:manage)</small>
              </h3>
              <label for="contract-reason">Reason</label>
              <input id="contract-reason" required maxlength="2048" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} />
              <button type="submit">{c.state === 'active' ? 'Suspend' : 'Reinstate'}</button>
            </form>
          </div>
        )}
      </Loaded>
      <OutcomeLine outcome={outcome()} />
    </section>
  );
}
