import { RelativeTime } from '../../time';
import { createSignal, For } from 'solid-js';
import { A } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { WithReason } from '../Unknown';
import { adminHeaders, adminKey, setAdminKey } from './held-keys';
import { KeyField } from './KeyField';
import { OwnUsage } from './OwnUsage';
import type { UsageReport } from './plans';

const PAGE = 50;
interface TenantList {
  tenants: UsageReport[];
  total: number;
  limit: number;
  offset: number;
  period: string;
}

/**
 * `#/tenants`: the operator's list of tenants (`GET /admin/tenants`: a token granting `tenant:manage`
 * and issued under no tenant, or the admin key typed into the field), and a tenant's own usage read
 * with its tenant key (`GET /usage`).
 */
export function Tenants() {
  const [offset, setOffset] = createSignal(0);
  const [list, reload] = createRead(
    () => ({ offset: offset(), t: token(), admin: adminKey() }),
    ({ offset: o }) => apiOf<TenantList>('token', `/admin/tenants?limit=${PAGE}&offset=${o}`, { headers: adminHeaders() }),
  );
  return (
    <section aria-labelledby="tenants-title">
      <h1 id="tenants-title">Tenants and usage</h1>
      <p>
        Operators see every tenant, its plan and status, and open one for its quota bars. Reading them takes a token granting <code>tenant:manage</code> (issued
        under no tenant) or the admin key.
      </p>
      <KeyField id="admin-key" label="Admin key" held={adminKey()} onUse={setAdminKey} purpose="the tenant views' requests" />
      <p>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </p>
      <Loaded result={list()} what="the tenants (scope tenant:manage, or the admin key)">
        {(v) => (
          <>
            <p role="status">
              {v.total} tenant{v.total === 1 ? '' : 's'}, usage for {v.period}.
            </p>
            <table class="tenants">
              <thead>
                <tr>
                  <th scope="col">name</th>
                  <th scope="col">plan</th>
                  <th scope="col">status</th>
                  <th scope="col">near a limit</th>
                  <th scope="col">id</th>
                  <th scope="col">created</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={v.tenants}
                  fallback={
                    <tr>
                      <td colspan="6">No tenants yet.</td>
                    </tr>
                  }
                >
                  {(r) => (
                    <tr data-tenant={r.tenant.id}>
                      <td>
                        <A href={`/tenants/${r.tenant.id}`}>{r.tenant.name}</A>
                      </td>
                      <td>{r.plan.label ?? r.tenant.plan}</td>
                      <td class={r.tenant.status === 'active' ? 'ok' : 'bad'}>
                        {r.tenant.statusReason ? <WithReason class="" text={r.tenant.status} reason={r.tenant.statusReason} /> : r.tenant.status}
                      </td>
                      <td class={r.approachingLimit.length > 0 ? 'warn' : ''}>
                        {r.approachingLimit.map((a) => `${a.metric} ${a.percentUsed}%`).join(', ') || 'none'}
                      </td>
                      <td>
                        <code>{r.tenant.id}</code>
                      </td>
                      <td>
                        <RelativeTime iso={r.tenant.createdAt} />
                      </td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <div class="pager">
              <button type="button" disabled={offset() === 0} onClick={() => setOffset(Math.max(0, offset() - PAGE))}>
                Previous page
              </button>
              <span>
                {v.total === 0 ? 0 : offset() + 1}–{Math.min(offset() + PAGE, v.total)} of {v.total}
              </span>
              <button type="button" disabled={offset() + PAGE >= v.total} onClick={() => setOffset(offset() + PAGE)}>
                Next page
              </button>
            </div>
          </>
        )}
      </Loaded>
      <OwnUsage />
    </section>
  );
}
