import { Show } from 'solid-js';
import { apiOf } from '../../api';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { setTenantKey, tenantKey } from './held-keys';
import { KeyField } from './KeyField';
import { readPlans, type UsageReport } from './plans';
import { TenantReport } from './TenantReport';

/**
 * A tenant's own usage: `GET /usage` answers to the tenant key alone (docs/TENANCY.md), not to a
 * token, so the person types the key; it is sent with these requests only.
 */
export function OwnUsage() {
  const [usage, reload] = createRead(tenantKey, (k) =>
    k === null ? Promise.resolve(undefined as never) : apiOf<UsageReport>('token', '/usage', { headers: { 'x-suite-tenant-key': k } }),
  );
  const [plans] = createRead(() => true, readPlans);
  return (
    <section aria-labelledby="own-usage-title">
      <h2 id="own-usage-title">Your tenant's usage</h2>
      <p>
        A tenant reads its own usage with its tenant key (<code>tk_…</code>); tokens do not read it.
      </p>
      <KeyField id="tenant-key" label="Tenant key" held={tenantKey()} onUse={setTenantKey} purpose="this usage request" />
      <Show when={tenantKey() !== null}>
        <p>
          <button type="button" onClick={reload}>
            Refresh usage
          </button>
        </p>
        <Loaded result={usage()} what="this tenant's usage (the tenant key)">
          {(report) => <TenantReport report={report} plans={plans()} heading="h3" />}
        </Loaded>
      </Show>
    </section>
  );
}
