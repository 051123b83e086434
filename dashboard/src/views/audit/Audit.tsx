import { RelativeTime } from '../../time';
import { createResource, For, Show } from 'solid-js';
import { useSearchParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { Loaded } from '../Loaded';
import { AuditFilters } from './AuditFilters';
import { AuditVerify } from './AuditVerify';
import type { AuditFilter, AuditPage } from './types';
import './audit.css';

/** A date-time with a space for the T, so that a narrow column breaks between the date and the time. */

/**
 * `#/audit`: every allow and deny decision of the suite's edges, newest first, filtered as
 * `GET /audit` allows; the filters live in the link, so a filtered view can be shared.
 */
export function Audit() {
  const [params, setParams] = useSearchParams<AuditFilter & Record<string, string>>();
  const filter = (): AuditFilter => ({
    subject: params.subject,
    result: params.result,
    from: params.from,
    to: params.to,
    limit: params.limit,
    offset: params.offset,
  });
  const query = () => ({ t: token(), ...filter() });
  const [page] = createResource(query, (q) => {
    const search = new URLSearchParams();
    for (const k of ['subject', 'result', 'from', 'to', 'limit', 'offset'] as const) if (q[k]) search.set(k, q[k]!);
    return apiOf<AuditPage>('token', `/audit?${search}`);
  });
  const limit = () => Number(params.limit ?? 50);
  const offset = () => Number(params.offset ?? 0);
  const go = (to: number) => setParams({ offset: to > 0 ? String(to) : undefined });
  // Every key named, so that a cleared filter leaves the link too.
  const apply = (f: AuditFilter) => setParams({ subject: f.subject, result: f.result, from: f.from, to: f.to, limit: f.limit, offset: undefined });

  return (
    <section aria-labelledby="audit-title" class="audit">
      <h1 id="audit-title">Audit trail</h1>
      <p>Every allow and deny decision on a guarded route, and every token issued or revoked, newest first. Each entry is hash-linked to the one before it.</p>
      <AuditVerify />
      <AuditFilters filter={filter()} apply={apply} />
      <Loaded result={page.latest} what="the audit trail (scope audit:read)">
        {(p) => (
          <>
            <p role="status" data-testid="audit-count">
              {p.total === 0 ? 'No entries match.' : `Entries ${offset() + 1}–${offset() + p.entries.length} of ${p.total}.`}
            </p>
            <table class="audit-table" data-testid="audit-table">
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Action</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Seq</th>
                  <th scope="col">Time</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                <For each={p.entries}>
                  {(e) => (
                    <tr data-seq={e.seq} data-result={e.result} data-subject={e.subject}>
                      <td>
                        {e.subject}
                        {e.tenantId ? <small> (tenant {e.tenantId})</small> : null}
                      </td>
                      <td>
                        {e.action}
                        <br />
                        <small class="resource">{e.resource}</small>
                      </td>
                      <td class={e.result === 'allow' ? 'ok' : 'bad'}>{e.result}</td>
                      <td title={`hash ${e.hash}\nprevious ${e.prevHash}`}>{e.seq}</td>
                      <td>
                        <RelativeTime iso={e.timestamp} />
                      </td>
                      <td>{e.reason}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <nav class="pager" aria-label="audit pages">
              <Show when={offset() > 0}>
                <button type="button" onClick={() => go(Math.max(0, offset() - limit()))}>
                  Previous page
                </button>
              </Show>
              <Show when={offset() + p.entries.length < p.total}>
                <button type="button" onClick={() => go(offset() + limit())}>
                  Next page
                </button>
              </Show>
            </nav>
          </>
        )}
      </Loaded>
    </section>
  );
}
