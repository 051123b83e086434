import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { Loaded } from '../Loaded';
import { AnomalyList } from './AnomalyList';
import { seg, StateBadge, TrustNav, useTrust, when } from './common';
import type { Anomaly, ChainRow } from './types';

/** `#/trust/chains`: agent-to-agent call chains, most recently active first, and the anomalies found in them. */
export function TrustChains() {
  const [list] = useTrust<{ chains: ChainRow[] }>(() => '/chains');
  const [anomalies] = useTrust<{ anomalies: Anomaly[] }>(() => '/anomalies');
  return (
    <section class="trust" aria-labelledby="chains-title">
      <h1 id="chains-title">Interaction chains</h1>
      <TrustNav />
      <p class="lede">
        Each chain is a tree of agents calling agents. Open one to see its calls as a tree, observers' opinions, linked executions and anomalies.
      </p>
      <Loaded result={list()} what="interaction chains (scope trust:read)">
        {(v) => (
          <table class="trust-table" data-testid="chains">
            <thead>
              <tr>
                <th scope="col">Chain</th>
                <th scope="col">Last outcome</th>
                <th scope="col">Calls</th>
                <th scope="col">Depth</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={v.chains}
                fallback={
                  <tr>
                    <td colspan="5">No interaction recorded yet.</td>
                  </tr>
                }
              >
                {(c) => (
                  <tr data-chain={c.id}>
                    <td>
                      <A href={`/trust/chains/${seg(c.id)}`}>{c.id}</A>
                    </td>
                    <td>
                      <StateBadge state={c.lastOutcome} />
                    </td>
                    <td>{c.interactionCount}</td>
                    <td>{c.maxDepth}</td>
                    <td>{when(c.lastActivityAt)}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        )}
      </Loaded>
      <h2>Anomalies</h2>
      <Loaded result={anomalies()} what="anomalies (scope trust:read)">
        {(v) => <AnomalyList anomalies={v.anomalies} />}
      </Loaded>
    </section>
  );
}
