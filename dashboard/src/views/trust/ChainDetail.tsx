import { For, Show } from 'solid-js';
import { useParams } from '@solidjs/router';
import { Loaded } from '../Loaded';
import { AnomalyList } from './AnomalyList';
import { ExecutionLink, seg, StateBadge, TrustNav, useTrust, when } from './common';
import type { ChainDetail, Interaction } from './types';

/** The chain as a tree: each call under the call it was made from; calls whose parent is past the first 1000 start their own branch. */
function treeOf(interactions: Interaction[]): { roots: Interaction[]; children: Map<string, Interaction[]> } {
  const ids = new Set(interactions.map((i) => i.id));
  const children = new Map<string, Interaction[]>();
  const roots: Interaction[] = [];
  for (const i of interactions) {
    if (i.parentId === null || !ids.has(i.parentId)) roots.push(i);
    else children.set(i.parentId, [...(children.get(i.parentId) ?? []), i]);
  }
  return { roots, children };
}

function Node(props: { i: Interaction; chain: ChainDetail; kids: Map<string, Interaction[]> }) {
  const flags = () => props.chain.anomalies.filter((a) => a.records.includes(props.i.id)).map((a) => a.kind);
  const observations = () => props.chain.observations.filter((o) => o.interactionId === props.i.id);
  const link = () => props.chain.executions.find((e) => e.interactionId === props.i.id);
  const kids = () => props.kids.get(props.i.id) ?? [];
  return (
    <li data-interaction={props.i.id} classList={{ flagged: flags().length > 0 }}>
      <span class="call">
        <strong>{props.i.caller}</strong> → <strong>{props.i.callee}</strong>
      </span>{' '}
      <StateBadge state={props.i.outcome} />
      <Show when={flags().length > 0}>
        {' '}
        <span class="bad" data-testid="flag">
          ⚠ {flags().join(', ')}
        </span>
      </Show>
      <br />
      <small>
        <code>{props.i.id}</code> · depth {props.i.depth} · {when(props.i.at)} by {props.i.recordedBy}
        <Show when={props.i.executionId}>
          {(x) => (
            <>
              {' '}
              · execution <ExecutionLink id={x()} /> {link() ? `(linked, ${link()!.outcome})` : '(not on the chain yet)'}
            </>
          )}
        </Show>
      </small>
      <Show when={observations().length > 0}>
        <ul class="observations">
          <For each={observations()}>
            {(o) => (
              <li data-observation={o.id}>
                <small>
                  opinion of {o.observer}: <StateBadge state={o.outcome} />
                  {o.note ? ` “${o.note}”` : ''} ({when(o.observedAt)})
                </small>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show when={kids().length > 0}>
        <ul class="tree">
          <For each={kids()}>{(k) => <Node i={k} chain={props.chain} kids={props.kids} />}</For>
        </ul>
      </Show>
    </li>
  );
}

/** `#/trust/chains/:id`: the chain's calls as an indented tree, observers' opinions, linked executions, and its anomalies flagged. */
export function TrustChain() {
  const params = useParams<{ id: string }>();
  const [chain, reload] = useTrust<ChainDetail>(() => `/chains/${seg(params.id)}`);
  return (
    <section class="trust" aria-labelledby="chain-detail-title">
      <h1 id="chain-detail-title">Chain {params.id}</h1>
      <TrustNav />
      <Loaded result={chain()} what="the chain (scope trust:read)">
        {(c) => {
          const tree = treeOf(c.interactions);
          return (
            <div data-testid="chain">
              <p class="lede">
                {c.interactionCount} call(s), depth {c.maxDepth}, started {when(c.startedAt)}, last activity {when(c.lastActivityAt)}.
                {c.stalled ? <strong class="bad"> Stalled: waiting on a pending call.</strong> : ''}{' '}
                <button type="button" onClick={reload}>
                  Refresh
                </button>
              </p>
              <h2>Anomalies</h2>
              <AnomalyList anomalies={c.anomalies} hideChain />
              <h2>Calls</h2>
              <ul class="tree root" aria-label="calls, each under the call it was made from">
                <For each={tree.roots}>{(i) => <Node i={i} chain={c} kids={tree.children} />}</For>
              </ul>
              <Show when={c.interactions.length < c.interactionCount}>
                <p>
                  <small>The first {c.interactions.length} calls are shown.</small>
                </p>
              </Show>
            </div>
          );
        }}
      </Loaded>
    </section>
  );
}
