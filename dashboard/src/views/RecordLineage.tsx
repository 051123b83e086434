import { createResource, For, Show } from 'solid-js';
import { A } from '@solidjs/router';
import { api } from '../api';
import { token } from '../auth';
import { Loaded } from './Loaded';

interface Linked {
  id: string;
  subject: string;
  outcome: string;
  depth: number;
}
interface Lineage {
  inheritedFailures: Linked[];
  upstream: { count: number; maxDepth: number; truncated: boolean };
  blastRadius: { records: Linked[]; count: number; maxDepth: number; truncated: boolean };
  meaning: string;
}

function LinkedList(props: { rows: Linked[]; empty: string }) {
  return (
    <ul class="lineage">
      <For each={props.rows} fallback={<li>{props.empty}</li>}>
        {(r) => (
          <li data-lineage-id={r.id}>
            <A href={`/records/${r.id}`}>{r.id}</A> {r.subject}, {r.outcome}, {r.depth} step{r.depth === 1 ? '' : 's'} away
          </li>
        )}
      </For>
    </ul>
  );
}

/** Where this record's content came from and went (`GET /executions/{id}/lineage`): content moved, not cause. */
export function RecordLineage(props: { id: string }) {
  const [lineage] = createResource(
    () => ({ id: props.id, t: token() }),
    ({ id }) => api<Lineage>(`/executions/${encodeURIComponent(id)}/lineage`),
  );
  return (
    <section aria-labelledby="lineage-title" data-testid="lineage">
      <h2 id="lineage-title">Lineage</h2>
      <Loaded result={lineage()} what="this record's lineage (scope execution:read)">
        {(l) => (
          <>
            <p>
              <small>{l.meaning}</small>
            </p>
            <h3>
              Upstream: {l.upstream.count} record{l.upstream.count === 1 ? '' : 's'}
              {l.upstream.truncated ? ' (more beyond the walk)' : ''}
            </h3>
            <LinkedList rows={l.inheritedFailures} empty="No failed record upstream." />
            <h3>
              Downstream (blast radius): {l.blastRadius.count} record{l.blastRadius.count === 1 ? '' : 's'}
              {l.blastRadius.truncated ? ' (more beyond the walk)' : ''}
            </h3>
            <Show when={l.blastRadius.records.length > 0} fallback={<p>No record consumed this record's output.</p>}>
              <LinkedList rows={l.blastRadius.records} empty="" />
            </Show>
          </>
        )}
      </Loaded>
    </section>
  );
}
