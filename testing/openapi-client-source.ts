/**
 * Test-only: the source of a small program written against clients generated from the six OpenAPI
 * documents (testing/openapi-client.ts). It reads fields of the answers of representative
 * operations of every listener with no cast: with an undescribed response, `data` is `never` or
 * `unknown` and it does not compile.
 */

export const CLIENT_SOURCE = `
import createClient from 'openapi-fetch';
import type { paths as Token } from './generated/token.ts';
import type { paths as Scheduler } from './generated/scheduler.ts';
import type { paths as Bench } from './generated/bench.ts';
import type { paths as Connector } from './generated/connector.ts';
import type { paths as Trust } from './generated/trust.ts';
import type { paths as Dashboard } from './generated/dashboard.ts';

export interface Urls { token: string; scheduler: string; bench: string; connector: string; trust: string; dashboard: string }

const SCOPES = ['execution:record', 'execution:read', 'schedule:read', 'trust:read', 'bench:read'];

/** Mints, records, reads back and validates on the token listener; reads one answer of every other listener. */
export async function exercise(urls: Urls, adminKey: string) {
  const admin = createClient<Token>({ baseUrl: urls.token, headers: { 'x-suite-admin-key': adminKey } });
  const minted = await admin.POST('/auth/token', { body: { sub: 'client-agent', scope: SCOPES } });
  if (minted.data === undefined) throw new Error('mint: ' + minted.error.error.code);
  const token: string = minted.data.token;
  const exp: number = minted.data.exp;
  const headers = { authorization: 'Bearer ' + token };

  const agent = createClient<Token>({ baseUrl: urls.token, headers });
  const body = { subject: 'client-agent', module: 'm', action: 'a', input: { n: 1 }, outcome: 'success' };
  const recorded = await agent.POST('/executions', { body, params: { header: { 'idempotency-key': 'client-1' } } });
  if (recorded.data === undefined) throw new Error('record: ' + recorded.error.error.code + ' ' + recorded.error.error.message);
  const replayed = await agent.POST('/executions', { body, params: { header: { 'idempotency-key': 'client-1' } } });
  const read = await agent.GET('/executions/{id}', { params: { path: { id: recorded.data.id } } });
  if (read.data === undefined) throw new Error('read: ' + read.error.error.code);
  const missing = await agent.GET('/executions/{id}', { params: { path: { id: 'exec_' + '0'.repeat(32) } } });

  const validated = await admin.POST('/auth/token/validate', { body: { token, requiredScope: 'execution:read' } });
  const refused = await admin.POST('/auth/token/validate', { body: { token, requiredScope: 'tenant:manage' } });
  const refusal = refused.error !== undefined && 'valid' in refused.error ? refused.error : undefined;

  const schedules = await createClient<Scheduler>({ baseUrl: urls.scheduler, headers }).GET('/schedule');
  const providers = await createClient<Bench>({ baseUrl: urls.bench }).GET('/providers');
  const connectors = await createClient<Connector>({ baseUrl: urls.connector }).GET('/connectors');
  const obligations = await createClient<Trust>({ baseUrl: urls.trust }).GET('/obligations');
  const dashboard = createClient<Dashboard>({ baseUrl: urls.dashboard, headers });
  const listed = await dashboard.GET('/executions', { params: { query: { limit: 5 } } });
  const health = await dashboard.GET('/health');

  return {
    exp,
    recorded: { status: recorded.response.status, id: recorded.data.id, seq: recorded.data.seq, hash: recorded.data.hash, keyId: recorded.data.keyId, jti: recorded.data.attested.jti },
    replayedStatus: replayed.response.status,
    replayedHash: replayed.data?.hash,
    readBack: { hash: read.data.hash, prevHash: read.data.prevHash, signature: read.data.signature },
    missing: { status: missing.response.status, code: missing.error?.error.code },
    validated: { valid: validated.data?.valid, sub: validated.data?.sub, scopeSatisfied: validated.data?.scopeSatisfied },
    refused: { status: refused.response.status, valid: refusal?.valid, error: refusal?.error, scopeSatisfied: refusal?.scopeSatisfied },
    schedules: { total: schedules.data?.total, first: schedules.data?.schedules[0]?.id },
    providers: providers.data?.providers.map((p) => p.name),
    connectors: connectors.data?.connectors.map((c) => ({ id: c.id, configured: c.configured })),
    promises: obligations.data?.promises.length,
    listed: listed.data?.records.map((r) => r.hash),
    health: { status: health.data?.status, service: health.data?.service, uptime: health.data?.uptime },
  };
}

/** Compiled, never run: more answers read without a cast (they would need set-up the run above does not make). */
export async function typedOnly(urls: Urls, token: string) {
  const headers = { authorization: 'Bearer ' + token };
  const created = await createClient<Scheduler>({ baseUrl: urls.scheduler, headers }).POST('/schedule', {
    body: { id: 'nightly', cron: '0 3 * * *', task: { type: 'http', url: 'https://example.invalid/' } },
  });
  const nextRun: string | null | undefined = created.data?.nextRun;
  const queued = await createClient<Scheduler>({ baseUrl: urls.scheduler, headers }).GET('/queue/{id}/status', { params: { path: { id: 't' } } });
  const run = await createClient<Bench>({ baseUrl: urls.bench, headers }).POST('/run', { body: { provider: 'http', url: 'https://example.invalid/' } });
  const jobId: string | undefined = run.data?.jobId;
  const compared = await createClient<Bench>({ baseUrl: urls.bench, headers }).GET('/compare', { params: { query: { baseline: 'a', candidate: 'b' } } });
  const verdict: 'regression' | 'improvement' | 'no significant change' | undefined = compared.data?.verdict;
  const trust = createClient<Trust>({ baseUrl: urls.trust, headers });
  const evidence = await trust.GET('/evidence/{subjectId}', { params: { path: { subjectId: 'agent-1' } } });
  const notice: string | undefined = evidence.data?.notice;
  const health = await trust.GET('/contracts/{contractId}/health', { params: { path: { contractId: 'c1' } } });
  const agentFailures: number | undefined = health.data?.failures.agent.total;
  const verified = await createClient<Connector>({ baseUrl: urls.connector, headers }).POST('/connectors/{id}/verify', { params: { path: { id: 'slack' } } });
  const detail: string | undefined = verified.data?.detail;
  const live = await createClient<Dashboard>({ baseUrl: urls.dashboard }).GET('/dashboard/health');
  const states = live.data?.services.map((s) => s.state);
  return { nextRun, state: queued.data?.state, jobId, verdict, notice, agentFailures, detail, states, code: run.error?.error.code };
}
`;

/** Reads a field no answer has: must not compile, or the check above proves nothing. */
export const WRONG_SOURCE = `
import createClient from 'openapi-fetch';
import type { paths } from './generated/token.ts';

export async function wrong(baseUrl: string) {
  const recorded = await createClient<paths>({ baseUrl }).POST('/executions', { body: { subject: 's', module: 'm', action: 'a', input: 1, outcome: 'success' } });
  const notThere: string | undefined = recorded.data?.notAFieldOfARecord;
  return notThere;
}
`;
