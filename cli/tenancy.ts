import type { Bus } from '../bus/index.ts';
import { subjects } from '../bus/index.ts';
import { tenantKeyHash } from '../core/tenancy/index.ts';
import type { Meter, TenantResolver } from '../edge-http/index.ts';

/**
 * The edge's tenancy collaborators over the bus. Nothing is cached here on purpose: each tenant-keyed
 * call asks the tenancy actor, which reads the database, so a rotated key or a suspension is refused
 * by every process as soon as its change was answered (docs/TENANCY.md, "Rotation"). The key
 * itself never travels: only its SHA-256.
 */
export function busTenantResolver(bus: Bus): TenantResolver {
  return {
    async resolve(key) {
      const result = await bus.request(subjects.tenancyResolve, { keyHash: tenantKeyHash(key) });
      return result.ok ? { ok: true, tenantId: result.value.tenantId } : { ok: false, error: result.error };
    },
  };
}

export function busMeter(bus: Bus): Meter {
  return { meter: (request) => bus.request(subjects.tenancyMeter, request) };
}
