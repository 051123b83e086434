import { createResource, For, Match, Show, Switch } from 'solid-js';
import { useParams } from '@solidjs/router';
import { api, type ApiResult } from '../api';
import { token } from '../auth';
import { NotPermitted } from './Unknown';
import { label } from '../labels';
import { FieldValue } from './FieldValue';
import { RecordLineage } from './RecordLineage';
import { RecordReplay } from './RecordReplay';
import { RecordReceipt } from './RecordReceipt';

interface Conditions {
  conditions: { condition: string; state: string; field: string; detail: string }[];
  conclusion: string;
}
interface Explain {
  sentences: { text: string; fields: string[] }[];
  basis: string;
}

export function RecordView() {
  const params = useParams<{ id: string }>();
  const key = () => ({ id: params.id, t: token() });
  const [record] = createResource(key, ({ id }) => api<Record<string, unknown>>(`/executions/${encodeURIComponent(id)}`));
  const [conditions] = createResource(key, ({ id }) => api<Conditions>(`/executions/${encodeURIComponent(id)}/conditions`));
  const [explain] = createResource(key, ({ id }) => api<Explain>(`/executions/${encodeURIComponent(id)}/explain`));
  const failed = (r: ApiResult<unknown> | undefined) => (r && r.kind !== 'ok' ? r : null);

  return (
    <section aria-labelledby="record-title">
      <h1 id="record-title">Record {params.id}</h1>
      <Switch>
        <Match when={record()?.kind === 'not-permitted'}>
          <NotPermitted what="execution records (scope execution:read)" message={(record() as { message: string }).message} />
        </Match>
        <Match when={failed(record())}>{(f) => <p class="bad">{(f() as { message: string }).message}</p>}</Match>
        <Match when={record()?.kind === 'ok'}>
          {/* The verdict first: whether this browser could verify the record, before its fields. */}
          <RecordReceipt id={params.id} />
          <h2>Fields</h2>
          <dl class="fields">
            <For each={Object.entries((record() as { value: Record<string, unknown> }).value)}>
              {([k, v]) => (
                <>
                  <dt title={k}>{label(k)}</dt>
                  <dd>
                    <FieldValue name={k} value={v} />
                  </dd>
                </>
              )}
            </For>
          </dl>
          <h2>The five conditions</h2>
          <Show when={conditions()?.kind === 'ok'} fallback={<p>{(failed(conditions()) as { message: string } | null)?.message ?? 'loading…'}</p>}>
            {(() => {
              const c = (conditions() as { value: Conditions }).value;
              return (
                <>
                  <ul class="conditions">
                    <For each={c.conditions}>
                      {(x) => (
                        <li data-condition={x.condition}>
                          <strong>{x.condition}</strong>: {x.state} <small>({x.field})</small> — {x.detail}
                        </li>
                      )}
                    </For>
                  </ul>
                  <p>{c.conclusion}</p>
                </>
              );
            })()}
          </Show>
          <h2>Explanation</h2>
          <Show when={explain()?.kind === 'ok'} fallback={<p>{(failed(explain()) as { message: string } | null)?.message ?? 'loading…'}</p>}>
            {(() => {
              const e = (explain() as { value: Explain }).value;
              return (
                <>
                  <For each={e.sentences}>{(s) => <p title={`from ${s.fields.join(', ')}`}>{s.text}</p>}</For>
                  <p>
                    <small>{e.basis}</small>
                  </p>
                </>
              );
            })()}
          </Show>
          <RecordLineage id={params.id} />
          <RecordReplay id={params.id} />
        </Match>
      </Switch>
    </section>
  );
}
