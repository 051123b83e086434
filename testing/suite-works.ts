import { expect } from 'vitest';
import type { TestSuite } from './suite.ts';
import { call } from '../integration/helpers.ts';

/** Each step of `expectSuiteWorks` must answer within this: a wedged storage answered 503 after 5 s. */
const STEP_MS = 3_000;

/**
 * What "the suite still works" means after something hostile happened to it: it issues a token,
 * validates it, records an execution with it and verifies that record, revokes the token (which is
 * then refused), its audit chain verifies and holds the decisions just made, and `/ready` says so.
 * Every step answers within STEP_MS. `label` names the step that failed.
 */
export async function expectSuiteWorks(t: TestSuite, label: string): Promise<void> {
  const url = (path: string) => t.url('token', path);
  const admin = { adminKey: t.adminKey, timeoutMs: STEP_MS };
  const sub = `works-${Math.random().toString(36).slice(2, 10)}`;

  const issued = await call(url('/auth/token'), { ...admin, body: { sub, scope: ['execution:record', 'auth:token:validate'] } });
  expect(issued.status, `${label}: issue ${JSON.stringify(issued.body)}`).toBe(200);
  const { token, jti } = issued.body as { token: string; jti: string };

  const valid = await call(url('/auth/token/validate'), { token, timeoutMs: STEP_MS, body: { token } });
  expect(valid.status, `${label}: validate ${JSON.stringify(valid.body)}`).toBe(200);

  const recorded = await call(url('/executions'), {
    token,
    timeoutMs: STEP_MS,
    body: { subject: sub, module: 'works', action: 'check', input: { label }, outcome: 'success' },
  });
  expect(recorded.status, `${label}: record an execution ${JSON.stringify(recorded.body)}`).toBe(201);
  const verified = await call(url('/executions/verify'), { timeoutMs: STEP_MS, body: { id: (recorded.body as { id: string }).id } });
  expect(verified.body, `${label}: verify the execution`).toMatchObject({ valid: true });

  const revoked = await call(url('/auth/token/revoke'), { ...admin, body: { jti } });
  expect(revoked.body, `${label}: revoke`).toEqual({ revoked: true, jti });
  const refused = await call(url('/auth/token/validate'), { token, timeoutMs: STEP_MS, body: { token } });
  expect(refused.status, `${label}: the revoked token is refused`).toBe(401);

  const chain = await call(url('/audit/verify'), admin);
  expect(chain.body, `${label}: the audit chain verifies`).toMatchObject({ valid: true });
  const trail = await call(url(`/audit?limit=500`), admin);
  const resources = (trail.body as { entries: Array<{ action: string; resource: string }> }).entries
    .filter((e) => e.resource === `token:${jti}`)
    .map((e) => e.action);
  expect(resources, `${label}: the audit trail holds the revocation`).toContain('auth:token:revoke');

  const ready = await call(url('/ready'), { timeoutMs: STEP_MS });
  expect({ status: ready.status, body: ready.body }, `${label}: ready`).toMatchObject({ status: 200, body: { ready: true } });
}
