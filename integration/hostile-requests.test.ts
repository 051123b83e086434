import { afterEach, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { call, type CallOptions } from './helpers.ts';
import { expectSuiteWorks } from '../testing/suite-works.ts';

/**
 * The four requests of issue 13, each on a fresh embedded suite (PGlite, as `npm start` runs it).
 * Each answered 500 INTERNAL_ERROR, with no cause logged; after it the audit append failed every
 * 2 s for good, issuing and revoking answered 503 after 5 s (the revocation having taken effect),
 * and /ready still said ready. Each must now be refused with 400 naming the field, and the suite
 * must go on issuing and revoking at once.
 */
const cases: Array<{ name: string; path: string; options: (t: TestSuite) => CallOptions; message: string }> = [
  {
    name: 'POST /identities/a%00b/challenge (public)',
    path: '/identities/a%00b/challenge',
    options: () => ({ method: 'POST', body: {} }),
    message: 'params/subject must not contain NUL (U+0000)',
  },
  {
    name: 'POST /executions/verify with {"id":"exec_\\u0000"} (public)',
    path: '/executions/verify',
    options: () => ({ body: { id: 'exec_\u0000' } }),
    message: 'body/id must not contain NUL (U+0000)',
  },
  {
    name: 'GET /identities/a%00b (admin key)',
    path: '/identities/a%00b',
    options: (t) => ({ adminKey: t.adminKey }),
    message: 'params/subject must not contain NUL (U+0000)',
  },
  {
    name: 'POST /auth/token with a NUL in sub (admin key)',
    path: '/auth/token',
    options: (t) => ({ adminKey: t.adminKey, body: { sub: 'a\u0000b', scope: ['audit:read'] } }),
    message: 'body/sub must not contain NUL (U+0000)',
  },
];

let t: TestSuite | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('the requests that wedged the embedded suite', () => {
  for (const c of cases) {
    it(`refuses ${c.name} with 400 naming the field, and the suite goes on issuing and revoking`, async () => {
      t = await startTestSuite();
      // A session in use, as when the issue was found: the chain writers' statements are prepared.
      await expectSuiteWorks(t, 'before');
      const answer = await call(t.url('token', c.path), c.options(t));
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: { code: 'INVALID_REQUEST', message: c.message } } });
      await expectSuiteWorks(t, `after ${c.name}`);
    });
  }

  it('issues a token with 100 scopes of 200 characters, and the audit trail goes on (its entry once exceeded its own limit and was retried forever, on any storage)', async () => {
    t = await startTestSuite();
    const scope = Array.from({ length: 100 }, (_, i) => `s${i}:${'a'.repeat(190)}`);
    const issued = await call(t.url('token', '/auth/token'), { adminKey: t.adminKey, body: { sub: 'many-scopes', scope }, timeoutMs: 3_000 });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    await expectSuiteWorks(t, 'after a token with 100 long scopes');
  });
});
