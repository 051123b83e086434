import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { adminHeaders, adminKey, setAdminKey } from './held-keys';
import { KeyField } from './KeyField';
import { readPlans, type UsageReport } from './plans';
import { TenantReport } from './TenantReport';

/** `#/tenants/<id>`: one tenant's usage report for the operator (`GET /admin/tenants/:id`), as quota bars. */
export function TenantDetail() {
  const params = useParams<{ id: string }>();
  const [report, reload] = createRead(
    () => ({ id: params.id, t: token(), admin: adminKey() }),
    ({ id }) => apiOf<UsageReport>('token', `/admin/tenants/${encodeURIComponent(id)}`, { headers: adminHeaders() }),
  );
  const [plans, reloadPlans] = createRead(() => true, readPlans);
  return (
    <section aria-labelledby="tenant-title">
      <h1 id="tenant-title">Tenant {params.id}</h1>
      <p>
        <A href="/tenants">All tenants</A> · This month's use of each metered quantity against the limit of the tenant's plan (<code>GET /plans</code>). Amber
        from 80% or one unit left, red at the limit.
      </p>
      <KeyField id="admin-key" label="Admin key" held={adminKey()} onUse={setAdminKey} purpose="the tenant views' requests" />
      <p>
        <button
          type="button"
          onClick={() => {
            reload();
            reloadPlans();
          }}
        >
          Refresh
        </button>
      </p>
      <Loaded result={report()} what="this tenant's usage (scope tenant:manage, or the admin key)">
        {(r) => <TenantReport report={r} plans={plans()} heading="h2" />}
      </Loaded>
    </section>
  );
}
