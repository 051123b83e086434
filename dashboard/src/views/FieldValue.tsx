import { For, type JSX } from 'solid-js';
import { label, TIME_FIELDS } from '../labels';
import { RelativeTime } from '../time';

/**
 * A record's field as a person reads it: a time relative (exact on hover), text and numbers as
 * code, nothing as "none", a list as its items, and an object (cost, governance, attested by) as
 * its own labelled fields rather than a line of JSON.
 */
export function FieldValue(props: { name: string; value: unknown }): JSX.Element {
  const v = props.value;
  if (v === null || v === undefined) return <em class="none">none</em>;
  if (typeof v === 'string') return TIME_FIELDS.has(props.name) ? <RelativeTime iso={v} /> : <code>{v}</code>;
  if (typeof v !== 'object') return <code>{String(v)}</code>;
  if (Array.isArray(v)) {
    if (v.length === 0) return <em class="none">none</em>;
    return (
      <ul class="values">
        <For each={v}>
          {(item) => (
            <li>
              <FieldValue name={props.name} value={item} />
            </li>
          )}
        </For>
      </ul>
    );
  }
  return (
    <dl class="nested">
      <For each={Object.entries(v as Record<string, unknown>)}>
        {([k, inner]) => (
          <>
            <dt title={k}>{label(k)}</dt>
            <dd>
              <FieldValue name={k} value={inner} />
            </dd>
          </>
        )}
      </For>
    </dl>
  );
}
