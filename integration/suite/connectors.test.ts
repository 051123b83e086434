import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCanonical } from '../../core/chain/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/storage.ts';
import { fakeGithub, fakeSlack, fakeWebhookReceiver, type FakeServer } from '../../testing/fake-providers.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The connector service against local servers speaking the Slack Web API, GitHub REST and Standard
 * Webhooks, and the real local Postgres: the registry, read-only verification (0 writes), actions
 * recorded as execution traces that verify with the public key, provider errors as codes, bad input.
 */

const SLACK_TOKEN = `xoxb-${randomBytes(12).toString('hex')}`;
const GITHUB_TOKEN = `ghp_${randomBytes(18).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let t: TestSuite;
let slack: FakeServer;
let github: FakeServer;
let hooks: Awaited<ReturnType<typeof fakeWebhookReceiver>>;
let db: TestDatabase;
let executeToken: string;
let readToken: string;

beforeAll(async () => {
  [slack, github, hooks, db] = await Promise.all([fakeSlack(SLACK_TOKEN), fakeGithub(GITHUB_TOKEN), fakeWebhookReceiver(WEBHOOK_SECRET), createTestDatabase()]);
  t = await startTestSuite({
    CONNECTOR_SLACK_BOT_TOKEN: SLACK_TOKEN,
    CONNECTOR_SLACK_API_URL: `${slack.url}/api`,
    CONNECTOR_GITHUB_TOKEN: GITHUB_TOKEN,
    CONNECTOR_GITHUB_API_URL: github.url,
    CONNECTOR_WEBHOOK_URL: `${hooks.url}/hooks`,
    CONNECTOR_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CONNECTOR_WEBHOOK_HEALTH_URL: `${hooks.url}/health`,
    CONNECTOR_POSTGRES_URL: db.url,
    CONNECTOR_POSTGRES_ROW_LIMIT: '100',
    CONNECTOR_POSTGRES_STATEMENT_TIMEOUT_MS: '300',
  });
  executeToken = (await t.mint(['connector:execute', 'connector:read'], { sub: 'agent-7' })).token;
  readToken = (await t.mint(['connector:read'], { sub: 'agent-7' })).token;
}, machineTimeout(60_000));

afterAll(async () => {
  await t?.stop();
  await Promise.all([slack?.close(), github?.close(), hooks?.close()]);
  await db?.drop();
});

async function call(path: string, options: { token?: string; body?: unknown; method?: string } = {}) {
  const res = await fetch(t.url('connector', path), {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers: {
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text === '' ? undefined : JSON.parse(text) };
}

const act = (id: string, action: string, body: unknown, token = executeToken) => call(`/connectors/${id}/actions/${action}`, { token, body });
const verify = (id: string, token = readToken) => call(`/connectors/${id}/verify`, { token, method: 'POST' });
const allCalls = () => slack.calls.length + github.calls.length + hooks.calls.length;

/** The record verifies against the published public key (POST /executions/verify on the token listener). */
async function expectVerifiedTrace(record: { id: string }) {
  const keys = (await (await fetch(t.url('token', '/executions/public-key'))).json()) as { publicKey: string };
  const res = await fetch(t.url('token', '/executions/verify'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: record.id, publicKey: keys.publicKey }),
  });
  const verdict = (await res.json()) as { valid: boolean };
  expect(res.status).toBe(200);
  expect(verdict.valid).toBe(true);
}

describe('GET /connectors', () => {
  it('lists webhook, http, slack, github and postgres with their configuration state and never a secret value', async () => {
    const r = await call('/connectors');
    expect(r.status).toBe(200);
    expect(r.body.connectors.map((c: { id: string }) => c.id)).toEqual(['webhook', 'http', 'slack', 'github', 'postgres']);
    for (const c of r.body.connectors) {
      expect(c.configured, c.id).toBe(true);
      expect(c.missing).toEqual([]);
      expect(c.actions.length).toBeGreaterThan(0);
      for (const a of c.actions) expect(a.input.type).toBe('object');
    }
    const slackEntry = r.body.connectors.find((c: { id: string }) => c.id === 'slack');
    expect(slackEntry.variables).toContainEqual(expect.objectContaining({ name: 'CONNECTOR_SLACK_BOT_TOKEN', secret: true, required: true, set: true }));
    for (const secret of [SLACK_TOKEN, GITHUB_TOKEN, WEBHOOK_SECRET, db.url]) expect(r.text).not.toContain(secret);
  });

  it("shows one connector with its actions' input schemas, and 404 NOT_FOUND for an unknown id", async () => {
    const r = await call('/connectors/github');
    expect(r.status).toBe(200);
    expect(r.body.actions.map((a: { name: string }) => a.name)).toEqual(['create_issue', 'get_issue']);
    expect(r.body.actions[0].input.required).toEqual(['owner', 'repo', 'title']);
    expect(await call('/connectors/jira')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });
});

describe('POST /connectors/{id}/verify', () => {
  it("checks each connector's credentials read-only: 200, and no provider receives a single write", async () => {
    for (const id of ['slack', 'github', 'webhook', 'http', 'postgres']) {
      const r = await verify(id);
      expect(r.status, `${id}: ${r.text}`).toBe(200);
      expect(r.body).toMatchObject({ id, valid: true });
    }
    expect(slack.calls.map((c) => c.path)).toContain('/api/auth.test');
    expect(github.calls.map((c) => `${c.method} ${c.path}`)).toContain('GET /user');
    expect(hooks.calls.map((c) => `${c.method} ${c.path}`)).toContain('GET /health');
    expect([...slack.writes(), ...github.writes(), ...hooks.writes()]).toEqual([]);
  });

  it('answers 404 for an unknown connector and 401/403 without the connector:read scope', async () => {
    expect((await verify('nope')).status).toBe(404);
    expect((await call('/connectors/slack/verify', { method: 'POST' })).status).toBe(401);
    const other = (await t.mint(['execution:read'])).token;
    expect((await verify('slack', other)).body.error.code).toBe('CAPABILITY_INSUFFICIENT');
  });
});

describe('POST /connectors/{id}/actions/{action}', () => {
  it("posts a Slack message and records it as a signed execution trace of the token's subject", async () => {
    const input = { channel: 'C0SUITE01', text: 'deploy finished' };
    const r = await act('slack', 'post_message', input);
    expect(r.status, r.text).toBe(200);
    expect(r.body.output).toEqual({ channel: 'C0SUITE01', ts: expect.stringMatching(/^1700000000\.\d{6}$/) });
    const sent = slack.calls.at(-1)!;
    expect(sent.path).toBe('/api/chat.postMessage');
    expect(JSON.parse(sent.body)).toEqual(input);
    expect(sent.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`);
    const record = r.body.execution;
    expect(record).toMatchObject({ subject: 'agent-7', module: 'connector', action: 'slack.post_message', outcome: 'success' });
    expect(record.inputHash).toBe(hashCanonical(input));
    expect(record.outputHash).toBe(hashCanonical(r.body.output));
    expect(JSON.stringify(record)).not.toContain('deploy finished');
    await expectVerifiedTrace(record);
  });

  it("maps a Slack error to PROVIDER_REJECTED naming Slack's code, and records the failed attempt", async () => {
    const r = await act('slack', 'post_message', { channel: 'nowhere', text: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('PROVIDER_REJECTED');
    expect(r.body.error.message).toMatch(/channel_not_found/);
    const id = /exec_[0-9a-f]{32}/.exec(r.body.error.message)![0];
    const readToken2 = (await t.mint(['execution:read'])).token;
    const rec = (await (await fetch(t.url('token', `/executions/${id}`), { headers: { authorization: `Bearer ${readToken2}` } })).json()) as Record<
      string,
      unknown
    >;
    expect(rec).toMatchObject({ action: 'slack.post_message', outcome: 'failure', subject: 'agent-7' });
    expect(rec.outputHash).toBe(hashCanonical({ error: { code: 'PROVIDER_REJECTED', message: 'slack chat.postMessage: channel_not_found' } }));
    await expectVerifiedTrace({ id });
  });

  it('creates and reads a GitHub issue, and answers 422 PROVIDER_REJECTED for an issue that does not exist', async () => {
    const created = await act('github', 'create_issue', { owner: 'suite-org', repo: 'suite-repo', title: 'Flaky test', body: 'seen twice', labels: ['ci'] });
    expect(created.status, created.text).toBe(200);
    expect(created.body.output).toMatchObject({ number: 1, title: 'Flaky test', state: 'open', labels: ['ci'], author: 'suite-bot' });
    expect(JSON.parse(github.calls.at(-1)!.body)).toEqual({ title: 'Flaky test', body: 'seen twice', labels: ['ci'] });
    await expectVerifiedTrace(created.body.execution);

    const read = await act('github', 'get_issue', { owner: 'suite-org', repo: 'suite-repo', number: 1 });
    expect(read.status).toBe(200);
    expect(read.body.output).toMatchObject({ number: 1, body: 'seen twice' });
    expect(read.body.execution.action).toBe('github.get_issue');
    await expectVerifiedTrace(read.body.execution);

    const missing = await act('github', 'get_issue', { owner: 'suite-org', repo: 'suite-repo', number: 99 });
    expect(missing).toMatchObject({ status: 422, body: { error: { code: 'PROVIDER_REJECTED' } } });
    expect(missing.body.error.message).toMatch(/404 Not Found/);
  });

  it('sends a webhook event the receiver verifies as Standard Webhooks', async () => {
    const before = hooks.verified().length;
    const r = await act('webhook', 'send', { type: 'invoice.paid', data: { invoice: 'in_1', amount: 1200 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.output).toMatchObject({ delivered: true, status: 204, webhookId: expect.stringMatching(/^msg_/) });
    expect(hooks.verified().length).toBe(before + 1);
    const delivered = JSON.parse(hooks.verified().at(-1)!.body);
    expect(delivered).toEqual({ type: 'invoice.paid', timestamp: expect.any(String), data: { invoice: 'in_1', amount: 1200 } });
    await expectVerifiedTrace(r.body.execution);
  });

  it("makes an HTTP request and returns the answer's status and body", async () => {
    const r = await act('http', 'request', {
      method: 'GET',
      url: `${github.url}/user`,
      headers: { 'user-agent': 'x', authorization: `Bearer ${GITHUB_TOKEN}` },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.output.status).toBe(200);
    expect(JSON.parse(r.body.output.body)).toMatchObject({ login: 'suite-bot' });
    expect(r.body.execution).toMatchObject({ action: 'http.request', outcome: 'success' });
    await expectVerifiedTrace(r.body.execution);
  });

  it('runs a parameterised read-only Postgres query, capped at the row limit', async () => {
    const r = await act('postgres', 'query', { sql: 'select $1::int + 1 as n, $2::text as s', params: [41, 'hi'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.output).toEqual({ rows: [{ n: 42, s: 'hi' }], rowCount: 1, truncated: false, rowLimit: 100 });
    const many = await act('postgres', 'query', { sql: 'select g from generate_series(1, 5000) g' });
    expect(many.body.output).toMatchObject({ rowCount: 100, truncated: true });
    expect(many.body.output.rows.at(-1)).toEqual({ g: 100 });
    await expectVerifiedTrace(many.body.execution);
  });

  it('refuses every way of writing through the postgres connector, and cancels a statement past the timeout', async () => {
    const direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
    try {
      await direct.query('create table notes (x int); insert into notes values (1)');
      const attempts = [
        'insert into notes values (2)',
        'update notes set x = 5',
        'with d as (insert into notes values (3) returning 1) select * from d',
        'select 1; insert into notes values (4)',
        'create table pwned (x int)',
        'set transaction read write',
        'select * from notes for update',
      ];
      for (const sql of attempts) {
        const r = await act('postgres', 'query', { sql });
        expect(r.status, `${sql}: ${r.text}`).toBe(422);
        expect(r.body.error.code).toBe('PROVIDER_REJECTED');
      }
      expect((await direct.query('select x from notes')).rows).toEqual([{ x: 1 }]);
      expect((await direct.query("select count(*)::int as n from pg_tables where tablename = 'pwned'")).rows).toEqual([{ n: 0 }]);
      const create = await act('postgres', 'query', { sql: 'create table pwned (x int)' });
      expect(create.body.error.message).toMatch(/25006/);
    } finally {
      await direct.end();
    }
    const slow = await act('postgres', 'query', { sql: 'select pg_sleep(5)' });
    expect(slow.status).toBe(422);
    expect(slow.body.error.message).toMatch(/statement timeout/);
  });

  it('answers 400 INVALID_REQUEST naming the field for bad input, and sends nothing to any provider', async () => {
    const before = allCalls();
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['slack', 'post_message', { channel: 'C0SUITE01' }, /text/],
      ['slack', 'post_message', { channel: 'C0SUITE01', text: 'x', extra: 1 }, /extra|additional/],
      ['slack', 'post_message', { channel: 'C0SUITE01', text: 'a\u0000b' }, /text/],
      ['github', 'create_issue', { owner: 'suite-org', repo: '..', title: 'x' }, /repo/],
      ['github', 'get_issue', { owner: 'suite-org', repo: 'suite-repo', number: '1' }, /number/],
      ['webhook', 'send', { type: 'x', data: [] }, /data/],
      ['http', 'request', { method: 'GET', url: 'file:///etc/passwd' }, /url/],
      ['http', 'request', { method: 'GET', url: 'http://example.com/', headers: { Host: 'internal' } }, /headers/],
      ['postgres', 'query', { sql: '' }, /sql/],
      ['postgres', 'query', { sql: 'select $1', params: [{}] }, /params/],
    ];
    for (const [id, action, body, field] of cases) {
      const r = await act(id, action, body);
      expect(r.status, `${id}.${action} ${JSON.stringify(body)}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message).toMatch(field);
    }
    const long = 'x'.repeat(65);
    for (const [path, method] of [
      [`/connectors/${long}`, 'GET'],
      [`/connectors/${long}/verify`, 'POST'],
      [`/connectors/slack/actions/${long}`, 'POST'],
    ] as const) {
      const r = await call(path, { token: executeToken, method, ...(method === 'POST' && path.includes('actions') ? { body: {} } : {}) });
      expect(r.status, path).toBe(400);
      expect(r.body.error.message).toMatch(/params\/(id|action)/);
    }
    expect(allCalls()).toBe(before);
  });

  it('answers hostile bodies (deep nesting, __proto__ keys, lone surrogates) with 4xx and sends nothing', async () => {
    const before = allCalls();
    const deep = `{"type":"x","data":{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const bodies: Array<[string, string]> = [
      ['/connectors/webhook/actions/send', deep],
      ['/connectors/webhook/actions/send', '{"type":"x","data":{"__proto__":{"polluted":1}}}'],
      ['/connectors/webhook/actions/send', '{"type":"x","data":{"a":"\\ud800"}}'],
      ['/connectors/postgres/actions/query', '{"sql":"select \\ud800"}'],
      ['/generate', `{"prompt":${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
    ];
    for (const [path, body] of bodies) {
      const res = await fetch(t.url('connector', path), {
        method: 'POST',
        headers: { authorization: `Bearer ${executeToken}`, 'content-type': 'application/json' },
        body,
      });
      expect(res.status, `${path} ${body.slice(0, 60)}: ${await res.clone().text()}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    expect(allCalls()).toBe(before);
  });

  it('answers 404 for an unknown action or connector, 401 without a token, 403 without connector:execute', async () => {
    expect(await act('slack', 'delete_channel', {})).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await act('jira', 'create_issue', {})).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect((await call('/connectors/slack/actions/post_message', { body: { channel: 'C0SUITE01', text: 'x' } })).status).toBe(401);
    expect((await act('slack', 'post_message', { channel: 'C0SUITE01', text: 'x' }, readToken)).status).toBe(403);
  });
});

describe('POST /generate', () => {
  const generate = (body: unknown) => call('/generate', { body });

  it('answers a prompt with a YAML manifest, TypeScript and a spec, byte-identical for the same prompt', async () => {
    const prompt = 'Create tickets with a title and a body, get a ticket and list tickets in the Acme API at https://api.acme.io/v2';
    const first = await generate({ prompt });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['manifest', 'spec', 'typescript']);
    expect(first.body.manifest).toMatch(/^apiVersion: suite.connectors\/v1\n/);
    expect(first.body.typescript).toContain('export const acmeConnector: Connector = {');
    expect(first.body.spec).toMatchObject({ id: 'acme', baseUrl: 'https://api.acme.io/v2' });
    expect((await generate({ prompt })).text).toBe(first.text);
  });

  it('answers 400 INVALID_REQUEST naming prompt for a missing, empty, wordless or wrongly typed prompt', async () => {
    for (const body of [{}, { prompt: '' }, { prompt: '   ' }, { prompt: '?!' }, { prompt: 42 }, { prompt: 'x'.repeat(2001) }, { prompt: 'ok', other: 1 }]) {
      const r = await generate(body);
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message).toMatch(/prompt|other|additional/);
    }
  });
});

describe('a connector not configured, or whose credentials the provider rejects', () => {
  let bad: TestSuite;
  let badSlack: FakeServer;
  let echo: import('node:http').Server;
  let echoUrl = '';
  beforeAll(async () => {
    badSlack = await fakeSlack('xoxb-the-real-one');
    // A careless provider that quotes the credential it was sent in its error message.
    const { createServer } = await import('node:http');
    echo = createServer((req, res) =>
      res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `bad request from ${req.headers.authorization}` })),
    );
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as import('node:net').AddressInfo).port}`;
    bad = await startTestSuite({
      CONNECTOR_SLACK_BOT_TOKEN: 'xoxb-a-wrong-token',
      CONNECTOR_SLACK_API_URL: `${badSlack.url}/api`,
      CONNECTOR_GITHUB_TOKEN: GITHUB_TOKEN,
      CONNECTOR_GITHUB_API_URL: echoUrl,
    });
  }, machineTimeout(60_000));
  afterAll(async () => {
    await bad?.stop();
    await badSlack?.close();
    await new Promise((resolve) => echo?.close(resolve));
  });

  it('never answers a configured secret, even when the provider quotes it back', async () => {
    const token = (await bad.mint(['connector:execute'])).token;
    const res = await fetch(bad.url('connector', '/connectors/github/actions/get_issue'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'a', repo: 'b', number: 1 }),
    });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text).toContain('bad request from Bearer [redacted]');
    expect(text).not.toContain(GITHUB_TOKEN);
  });

  it('answers verify with 503 saying which: CREDENTIALS_REJECTED, or CONNECTOR_NOT_CONFIGURED naming the variables', async () => {
    const token = (await bad.mint(['connector:read', 'connector:execute'])).token;
    const post = (id: string, path: string, body?: unknown) =>
      fetch(bad.url('connector', `/connectors/${id}${path}`), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: { code: string; message: string } } }));
    const rejected = await post('slack', '/verify');
    expect(rejected).toMatchObject({ status: 503, body: { error: { code: 'CREDENTIALS_REJECTED' } } });
    expect(rejected.body.error.message).toMatch(/invalid_auth/);
    expect(rejected.body.error.message).not.toContain('xoxb-a-wrong-token');
    const unset = await post('webhook', '/verify');
    expect(unset).toMatchObject({ status: 503, body: { error: { code: 'CONNECTOR_NOT_CONFIGURED' } } });
    expect(unset.body.error.message).toMatch(/CONNECTOR_WEBHOOK_URL, CONNECTOR_WEBHOOK_SECRET/);
    const action = await post('webhook', '/actions/send', { type: 'x', data: {} });
    expect(action).toMatchObject({ status: 503, body: { error: { code: 'CONNECTOR_NOT_CONFIGURED' } } });
    const listed = (await (await fetch(bad.url('connector', '/connectors/webhook'))).json()) as { configured: boolean; missing: string[] };
    expect(listed).toMatchObject({ configured: false, missing: ['CONNECTOR_WEBHOOK_URL', 'CONNECTOR_WEBHOOK_SECRET'] });
    expect(badSlack.writes()).toEqual([]);
  });
});
