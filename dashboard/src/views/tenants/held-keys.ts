import { createSignal } from 'solid-js';

/**
 * The admin key and a tenant key, when a person types them into the tenants views: held in this
 * page's memory only (a signal; never session or local storage, never sent to the dashboard's server
 * except as the header of these views' own requests). A reload or "Forget" drops them.
 */
const [adminKey, setAdminKey] = createSignal<string | null>(null);
const [tenantKey, setTenantKey] = createSignal<string | null>(null);

export { adminKey, setAdminKey, tenantKey, setTenantKey };

/** The header that carries the admin key, when one is held. */
export function adminHeaders(): Record<string, string> {
  const k = adminKey();
  return k === null ? {} : { 'x-suite-admin-key': k };
}
