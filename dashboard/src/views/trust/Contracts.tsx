import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { Loaded } from '../Loaded';
import { seg, StateBadge, TrustNav, useTrust, when } from './common';
import type { Contract } from './types';

/** `#/trust/contracts`: contracts between agents and their operators, newest first. */
export function TrustContracts() {
  const [list] = useTrust<{ contracts: Contract[] }>(() => '/contracts');
  return (
    <section class="trust" aria-labelledby="contracts-title">
      <h1 id="contracts-title">Contracts</h1>
      <TrustNav />
      <p class="lede">Each contract binds an agent and its operator to terms; either can breach it. Open one for its health, terms and breaches.</p>
      <Loaded result={list()} what="contracts (scope trust:read)">
        {(v) => (
          <table class="trust-table" data-testid="contracts">
            <thead>
              <tr>
                <th scope="col">Contract</th>
                <th scope="col">State</th>
                <th scope="col">Agent</th>
                <th scope="col">Operator</th>
                <th scope="col">Terms</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={v.contracts}
                fallback={
                  <tr>
                    <td colspan="6">No contract yet.</td>
                  </tr>
                }
              >
                {(c) => (
                  <tr data-contract={c.id}>
                    <td>
                      <A href={`/trust/contracts/${seg(c.id)}`}>{c.title}</A>
                    </td>
                    <td>
                      <StateBadge state={c.state} />
                    </td>
                    <td>
                      <A href={`/trust/subjects/${seg(c.agentId)}`}>{c.agentId}</A>
                    </td>
                    <td>
                      <A href={`/trust/subjects/${seg(c.operatorId)}`}>{c.operatorId}</A>
                    </td>
                    <td>{c.terms.length}</td>
                    <td>{when(c.createdAt)}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        )}
      </Loaded>
    </section>
  );
}
