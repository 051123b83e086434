import { RelativeTime } from '../../time';
import { createMemo, createResource, For } from 'solid-js';
import { A, useSearchParams } from '@solidjs/router';
import { api } from '../../api';
import { token } from '../../auth';
import { Loaded } from '../Loaded';
import { CursorPager, cursorPages } from './paging';
import { REASON_KINDS, type AttentionPage, type ReasonKind } from './types';

/**
 * Unproven identity is the state of most records (an agent without an enrolled key), so the list
 * starts without it: a person scanning for what went wrong sees failures, missing capability and
 * refused governance first (issue 36, item 7), and ticks identity to see the rest.
 */
const DEFAULT_REASONS: readonly ReasonKind[] = REASON_KINDS.filter((k) => k !== 'identity');

/**
 * Records that are, on their face, failed, unproven or unauthorised, with the reasons and the field
 * that says so. The reason filter lives in the link (`#/attention?reason=outcome,capability`).
 */
export function AttentionList(props: { tick: number }) {
  const [params, setParams] = useSearchParams<{ reason?: string }>();
  const pages = cursorPages();
  const kinds = createMemo(() => {
    const asked = (params.reason ?? '').split(',').filter((k): k is ReasonKind => (REASON_KINDS as readonly string[]).includes(k));
    return asked.length > 0 ? asked : [...DEFAULT_REASONS];
  });
  const toggle = (k: ReasonKind, on: boolean) => {
    const next = REASON_KINDS.filter((x) => (x === k ? on : kinds().includes(x)));
    pages.reset();
    const isDefault = next.length === DEFAULT_REASONS.length && next.every((x) => DEFAULT_REASONS.includes(x));
    setParams({ reason: isDefault || next.length === 0 ? undefined : next.join(',') });
  };
  const query = () => ({ t: token(), kinds: kinds().join(','), cursor: pages.cursor(), tick: props.tick });
  const [page] = createResource(query, (q) => {
    const search = new URLSearchParams({ limit: '25', reason: q.kinds });
    if (q.cursor !== undefined) search.set('cursor', q.cursor);
    return api<AttentionPage>(`/executions/attention?${search}`);
  });

  return (
    <section aria-labelledby="attention-title" class="panel">
      <h2 id="attention-title">Needs attention</h2>
      <p>
        What the records show, newest first: not a judgement of incidents. Records made without an enrolled identity are unproven, which is most of them; tick{' '}
        <em>identity</em> to list those too.
      </p>
      <fieldset class="reasons">
        <legend>Reasons to show</legend>
        <For each={REASON_KINDS}>
          {(k) => (
            <label>
              <input type="checkbox" name="reason" value={k} checked={kinds().includes(k)} onChange={(e) => toggle(k, e.currentTarget.checked)} /> {k}
            </label>
          )}
        </For>
      </fieldset>
      <Loaded result={page.latest} what="the records needing attention (scope execution:read)">
        {(p) => (
          <>
            <table class="attention" data-testid="attention-table">
              <thead>
                <tr>
                  <th scope="col">Record</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Reasons</th>
                  <th scope="col">Seq</th>
                  <th scope="col">Action</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={p.records}
                  fallback={
                    <tr>
                      <td colspan="7">No record needs attention for these reasons.</td>
                    </tr>
                  }
                >
                  {(r) => (
                    <tr data-id={r.id}>
                      <td>
                        <A href={`/records/${r.id}`}>{r.id}</A>
                      </td>
                      <td>
                        <A href={`/attention?subject=${encodeURIComponent(r.subject)}`} title="this subject's authority">
                          {r.subject}
                        </A>
                      </td>
                      <td>
                        <ul class="reason-list">
                          <For each={r.reasons}>
                            {(x) => (
                              <li data-kind={x.kind}>
                                <strong>{x.kind}</strong>
                                {x.state ? ` ${x.state}` : ''}: {x.detail} <small>({x.field})</small>
                              </li>
                            )}
                          </For>
                        </ul>
                      </td>
                      <td>{r.seq}</td>
                      <td>
                        {r.module} / {r.action}
                      </td>
                      <td>{r.outcome}</td>
                      <td>
                        <RelativeTime iso={r.timestamp} />
                      </td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <CursorPager pages={pages} nextCursor={p.nextCursor} label="attention pages" />
          </>
        )}
      </Loaded>
    </section>
  );
}
