import { createSignal, For } from 'solid-js';
import { instantOf, localOf } from './time';
import { PAGE_SIZES, type AuditFilter } from './types';

/**
 * The filters `GET /audit` has: subject, result (allow or deny), a time window (inclusive) and the
 * page size. Applying them starts again at the first page.
 */
export function AuditFilters(props: { filter: AuditFilter; apply: (f: AuditFilter) => void }) {
  const [subject, setSubject] = createSignal(props.filter.subject ?? '');
  const [result, setResult] = createSignal(props.filter.result ?? '');
  const [from, setFrom] = createSignal(localOf(props.filter.from));
  const [to, setTo] = createSignal(localOf(props.filter.to));
  const [limit, setLimit] = createSignal(props.filter.limit ?? '50');
  const submit = (e: Event) => {
    e.preventDefault();
    props.apply({
      subject: subject().trim() || undefined,
      result: result() || undefined,
      from: instantOf(from()),
      to: instantOf(to()),
      limit: limit() === '50' ? undefined : limit(),
      offset: undefined,
    });
  };
  const clear = () => {
    setSubject('');
    setResult('');
    setFrom('');
    setTo('');
    setLimit('50');
    props.apply({});
  };
  return (
    <form class="audit-filters" onSubmit={submit} aria-label="audit filters">
      <div>
        <label for="audit-subject">Subject</label>
        <input id="audit-subject" type="search" value={subject()} onInput={(e) => setSubject(e.currentTarget.value)} placeholder="any" />
      </div>
      <div>
        <label for="audit-result">Decision</label>
        <select id="audit-result" value={result()} onChange={(e) => setResult(e.currentTarget.value)}>
          <option value="">allow and deny</option>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
      </div>
      <div>
        <label for="audit-from">From (your local time)</label>
        <input id="audit-from" type="datetime-local" value={from()} onInput={(e) => setFrom(e.currentTarget.value)} />
      </div>
      <div>
        <label for="audit-to">To (inclusive)</label>
        <input id="audit-to" type="datetime-local" value={to()} onInput={(e) => setTo(e.currentTarget.value)} />
      </div>
      <div>
        <label for="audit-limit">Per page</label>
        <select id="audit-limit" value={limit()} onChange={(e) => setLimit(e.currentTarget.value)}>
          <For each={PAGE_SIZES}>{(n) => <option value={n}>{n}</option>}</For>
        </select>
      </div>
      <div class="buttons">
        <button type="submit">Apply filters</button>{' '}
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
