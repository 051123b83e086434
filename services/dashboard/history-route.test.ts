import { describe, expect, it } from 'vitest';
import type { Principal } from '../../edge-http/index.ts';
import { historyFor } from './history-route.ts';
import { SERIES, type TrendRecorder } from './trends.ts';

/** A recorder whose every series has one point: what a reader is shown is decided by the rules alone. */
const trends = { points: () => [7], lastSeq: 3 } as unknown as TrendRecorder;
const permitted = (p: Principal) =>
  historyFor(p, trends)
    .series.filter((s) => s.permitted)
    .map((s) => s.name);

describe("the dashboard history's readers", () => {
  it("shows a token issued under a tenant only the series read from the public /metrics, never the ones that count every tenant's records and decisions", () => {
    const tenant = historyFor({ kind: 'token', sub: 'viewer', scope: ['*'], tenantId: 'ten_b' }, trends);
    expect(tenant.series.filter((s) => s.permitted).map((s) => s.name)).toEqual(['http4xx', 'http5xx', 'auditBacklog']);
    for (const s of tenant.series.filter((x) => !x.permitted)) {
      expect(s.points).toEqual([]);
      expect(s.reason).toMatch(/every tenant/);
    }
  });

  it('shows an untenanted token the series its scopes grant, and the admin key every series', () => {
    expect(permitted({ kind: 'token', sub: 'viewer', scope: ['audit:read'] })).toEqual(['allow', 'deny', 'http4xx', 'http5xx', 'auditBacklog']);
    expect(permitted({ kind: 'admin', sub: 'admin', scope: ['*'] })).toEqual([...SERIES]);
  });
});
