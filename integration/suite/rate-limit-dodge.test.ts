import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { CHALLENGE_RATE_LIMIT } from '../../services/token/routes/identities.ts';
import { caller, newAgentKey } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 5: the limiter keyed on the unverified bearer string, so 300 challenges each
 * with a made-up `Authorization: Bearer x$i.y.z` all passed (each its own budget), and each stored a
 * nonce row. Unverified credentials now spend their client address's budget.
 */
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('a rate limit that made-up credentials cannot dodge', () => {
  it('answers 429 to challenges past the budget even when each carries a different made-up bearer token, storing no nonce for them', async () => {
    const subject = 'agent-dodge';
    const enrol = await caller(t)('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(enrol.status).toBe(201);
    const sent = CHALLENGE_RATE_LIMIT.max * 2;
    const statuses = await Promise.all(
      Array.from({ length: sent }, async (_, i) => {
        const res = await fetch(t.url('token', `/identities/${subject}/challenge`), { method: 'POST', headers: { authorization: `Bearer x${i}.y.z` } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBe(CHALLENGE_RATE_LIMIT.max);
    expect(statuses.filter((s) => s === 429).length).toBe(sent - ok);
    const stored = await t.suite.storage!.pool.oneFirst(sql.unsafe`select count(*)::int8 from identity_nonces where subject = ${subject}`);
    expect(stored).toBe(ok);
  });
});
