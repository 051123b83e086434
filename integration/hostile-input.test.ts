import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { listRoutes, routeSchemas } from '../edge-http/index.ts';
import { createTestDatabase, type TestDatabase } from '../testing/storage.ts';
import { call, errorCode } from './helpers.ts';
import { hostileRequests, send, type Credential, type HostileRequest } from '../testing/hostile-corpus.ts';
import { expectSuiteWorks } from '../testing/suite-works.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Hostile input must never wedge the suite (issue 13). Every route of every listener, read from the
 * live route table (a route added later joins by itself), gets the corpus of integration/
 * hostile-corpus.ts, anonymously and with credentials that pass the capability check (the admin
 * key, a `*` token, a tenant key on tenant routes), so it reaches validators and handlers and not
 * only the 401s. Every answer must be a 4xx in the error shape, none a 500; afterwards the suite
 * still issues, validates, records, verifies and revokes, on both storages.
 */
const CONCURRENCY = 8;

/** The spec's one exception to the error shape: a failed validation answers `{valid:false, error}`. */
function wellShaped(r: HostileRequest, body: unknown): boolean {
  if (errorCode(body) !== undefined) return true;
  // The OAuth endpoints answer RFC 6749 §5.2 bodies (`{error, error_description}`), as their clients expect (docs/OAUTH.md).
  if (r.path.startsWith('/oauth/') && typeof (body as { error?: unknown } | null)?.error === 'string') return true;
  // The pages a person's browser shows (the device's user-code page, the consent form) answer a page saying why.
  if (/^\/oauth\/(device|consent)\b/.test(r.path) && typeof body === 'string' && body.startsWith('<!doctype html>') && body.includes('<h1>')) return true;
  const failedValidation = body as { valid?: unknown; error?: unknown } | null;
  return r.path.startsWith('/auth/token/validate') && failedValidation?.valid === false && typeof failedValidation.error === 'string';
}

/**
 * A number out of range is refused by the schema, 400 naming the field (issue 25, finding 8); a 401 or
 * 403 is the capability check answering first, for a caller the route does not admit.
 */
function namesField(r: HostileRequest, answer: { status: number; body: unknown }): boolean {
  if (r.outOfRange === undefined || answer.status === 401 || answer.status === 403) return true;
  const message = (answer.body as { error?: { message?: unknown } } | null)?.error?.message;
  return answer.status === 400 && typeof message === 'string' && message.includes(r.outOfRange);
}

async function runCorpus(t: TestSuite, credentials: (authority: string) => Credential[]) {
  const work: Array<{ origin: URL; request: HostileRequest }> = [];
  for (const edge of t.suite.edges) {
    const origin = new URL(t.url(edge.service));
    for (const route of listRoutes(edge.app)) {
      for (const request of hostileRequests(route, routeSchemas(route), credentials(route.authority.kind))) work.push({ origin, request });
    }
  }
  const wrong: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < work.length) {
        const { origin, request } = work[next++] as (typeof work)[number];
        const what = `${origin.port} ${request.method} ${request.path.slice(0, 80)} [${request.label}]`;
        try {
          const answer = await send(origin, request);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status < 400 || answer.status >= 500 || !wellShaped(request, answer.body) || !namesField(request, answer)) {
            wrong.push(`${what} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
          }
        } catch (err) {
          wrong.push(`${what} -> ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }),
  );
  return { sent: work.length, wrong, statuses };
}

describe.each([{ kind: 'pglite' as const }, { kind: 'postgres' as const }])('the hostile-input corpus on $kind', ({ kind }) => {
  let t: TestSuite;
  let db: TestDatabase | undefined;
  let star: string;
  let tenantKey: string;
  beforeAll(async () => {
    db = kind === 'postgres' ? await createTestDatabase() : undefined;
    t = await startTestSuite({
      // Every route there can be: signup exists only when enabled, the webhook checks signatures only with a secret.
      SUITE_SIGNUP_ENABLED: 'true',
      BILLING_WEBHOOK_SECRET: 'whsec_corpus_0123456789abcdef',
      ...(db ? { SUITE_DATABASE_URL: db.url } : {}),
    });
    star = (await t.mint(['*'], { sub: 'corpus-star' })).token;
    const tenant = await call(t.url('token', '/admin/tenants'), { adminKey: t.adminKey, body: { name: 'Corpus' } });
    tenantKey = (tenant.body as { apiKey: string }).apiKey;
    await expectSuiteWorks(t, 'before the corpus');
  }, machineTimeout(60_000));
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  it('answers every hostile request to every route of every listener with a 4xx in the error shape, and still works afterwards', {
    timeout: machineTimeout(120_000),
  }, async () => {
    const started = performance.now();
    const { sent, wrong, statuses } = await runCorpus(t, (authority): Credential[] => [
      { name: 'anonymous', headers: {} },
      { name: 'admin', headers: { 'x-suite-admin-key': t.adminKey } },
      { name: 'star token', headers: { authorization: `Bearer ${star}` } },
      ...(authority === 'tenant' ? [{ name: 'tenant key', headers: { 'x-suite-tenant-key': tenantKey } }] : []),
    ]);
    const ms = Math.round(performance.now() - started);
    process.stdout.write(`hostile corpus on ${kind}: ${sent} requests in ${ms} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`);
    expect(wrong.slice(0, 40), `${wrong.length} of ${sent} answers were not a 4xx in the error shape`).toEqual([]);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(sent / 2);
    await expectSuiteWorks(t, 'after the corpus');
  });
});
