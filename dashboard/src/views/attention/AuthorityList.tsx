import { RelativeTime } from '../../time';
import { createResource, createSignal, For, Show } from 'solid-js';
import { A, useSearchParams } from '@solidjs/router';
import { api } from '../../api';
import { token } from '../../auth';
import { Loaded } from '../Loaded';
import { CursorPager, cursorPages } from './paging';
import type { AuthorityPage, SubjectAuthority } from './types';

/**
 * Authority each subject exercised, built from the records (not from issued tokens): the scopes it
 * claimed, what it did, the outcomes, and how much of it the records demonstrate (Capability states).
 * `#/attention?subject=<s>` narrows it to one subject.
 */
export function AuthorityList(props: { tick: number }) {
  const [params, setParams] = useSearchParams<{ subject?: string }>();
  const [draft, setDraft] = createSignal(params.subject ?? '');
  const pages = cursorPages();
  const query = () => ({ t: token(), subject: params.subject, cursor: pages.cursor(), tick: props.tick });
  const [page] = createResource(query, (q) => {
    const search = new URLSearchParams({ limit: '25' });
    if (q.subject) search.set('subject', q.subject);
    if (q.cursor !== undefined) search.set('cursor', q.cursor);
    return api<AuthorityPage>(`/executions/authority?${search}`);
  });
  const apply = (subject: string) => {
    pages.reset();
    setParams({ subject: subject.trim() || undefined });
  };

  return (
    <section aria-labelledby="authority-title" class="panel">
      <h2 id="authority-title">Authority exercised, per subject</h2>
      <p>
        What each subject did and under which claimed scopes, from the records; <em>capability</em> says how many of its records show that authority
        (DEMONSTRATED) or not.
      </p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft());
        }}
      >
        <label for="authority-subject">Subject</label>
        <input id="authority-subject" type="search" placeholder="every subject" value={draft()} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Show</button>
        <Show when={params.subject}>
          <button
            type="button"
            onClick={() => {
              setDraft('');
              apply('');
            }}
          >
            Every subject
          </button>
        </Show>
      </form>
      <Loaded result={page.latest} what="the authority exercised (scope execution:read)">
        {(p) => (
          <>
            <table class="authority" data-testid="authority-table">
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Records</th>
                  <th scope="col">Scopes claimed</th>
                  <th scope="col">Capability</th>
                  <th scope="col">Actions</th>
                  <th scope="col">Outcomes</th>
                  <th scope="col">Seen</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={p.subjects}
                  fallback={
                    <tr>
                      <td colspan="7">No records for {params.subject ? `subject ${params.subject}` : 'any subject'}.</td>
                    </tr>
                  }
                >
                  {(s) => <SubjectRow s={s} />}
                </For>
              </tbody>
            </table>
            <CursorPager pages={pages} nextCursor={p.nextCursor} label="authority pages" />
          </>
        )}
      </Loaded>
    </section>
  );
}

const counted = (items: { count: number }[], name: (x: never) => string) => items.map((x) => `${name(x as never)} ×${x.count}`).join(', ') || 'none';

function SubjectRow(props: { s: SubjectAuthority }) {
  const s = props.s;
  return (
    <tr data-subject={s.subject}>
      <th scope="row">
        <A href={`/attention?subject=${encodeURIComponent(s.subject)}`}>{s.subject}</A>{' '}
        <A href={`/audit?subject=${encodeURIComponent(s.subject)}`} class="small-link" title={`the audit trail of ${s.subject}`}>
          audit
        </A>
      </th>
      <td>{s.records}</td>
      <td>{counted(s.scopes, (x: { scope: string }) => x.scope)}</td>
      <td>{counted(s.capability, (x: { state: string }) => x.state)}</td>
      <td>
        {counted(s.actions, (x: { module: string; action: string }) => `${x.module}/${x.action}`)}
        {s.truncated ? ' (cut at 100)' : ''}
      </td>
      <td>{counted(s.outcomes, (x: { outcome: string }) => x.outcome)}</td>
      <td>
        first <RelativeTime iso={s.firstSeen} />, last <RelativeTime iso={s.lastSeen} />
      </td>
    </tr>
  );
}
