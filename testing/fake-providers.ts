import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local servers that speak the providers' protocols as their documentation describes them, for the
 * connector tests. Each records every call it receives (method, path, headers, body), so a test can
 * say exactly what was sent, and that a check sent nothing that writes.
 */

export interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface FakeServer {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Calls that would change something at the provider. */
  writes(): RecordedCall[];
  close(): Promise<void>;
}

type Handler = (call: RecordedCall, res: ServerResponse) => void;

async function serve(handler: Handler, isWrite: (call: RecordedCall) => boolean): Promise<FakeServer> {
  const calls: RecordedCall[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(chunks).toString('utf8') };
      calls.push(call);
      handler(call, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    writes: () => calls.filter(isWrite),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function parse(body: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Slack Web API (https://api.slack.com/web): every method is POST /api/<method>, answers HTTP 200
 * with `{ok: false, error}` on failure; `invalid_auth` for a wrong token, `not_authed` for none.
 * Known channels: C0SUITE01 (#general).
 */
export function fakeSlack(token: string): Promise<FakeServer> {
  let posted = 0;
  return serve(
    (call, res) => {
      const auth = call.headers.authorization;
      if (auth === undefined) return json(res, 200, { ok: false, error: 'not_authed' });
      if (auth !== `Bearer ${token}`) return json(res, 200, { ok: false, error: 'invalid_auth' });
      if (call.method !== 'POST') return json(res, 405, { ok: false, error: 'method_not_allowed' });
      if (call.path === '/api/auth.test') {
        return json(res, 200, {
          ok: true,
          url: 'https://suite-test.slack.com/',
          team: 'Suite Test',
          user: 'suite-bot',
          team_id: 'T0SUITE',
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        });
      }
      if (call.path === '/api/chat.postMessage') {
        if (!String(call.headers['content-type']).startsWith('application/json')) return json(res, 200, { ok: false, error: 'invalid_arguments' });
        const body = parse(call.body);
        if (body === undefined) return json(res, 200, { ok: false, error: 'invalid_json' });
        if (body.channel !== 'C0SUITE01' && body.channel !== 'general') return json(res, 200, { ok: false, error: 'channel_not_found' });
        if (typeof body.text !== 'string' || body.text === '') return json(res, 200, { ok: false, error: 'no_text' });
        posted += 1;
        const ts = `1700000000.${String(posted).padStart(6, '0')}`;
        return json(res, 200, { ok: true, channel: 'C0SUITE01', ts, message: { type: 'message', text: body.text, user: 'U0BOT', ts } });
      }
      return json(res, 200, { ok: false, error: 'unknown_method' });
    },
    (call) => call.path !== '/api/auth.test',
  );
}

/**
 * GitHub REST (https://docs.github.com/rest): bearer token, a User-Agent required (403 without),
 * `{message, documentation_url}` on errors; repository `suite-org/suite-repo` exists.
 */
export function fakeGithub(token: string): Promise<FakeServer> {
  const issues = new Map<number, Record<string, unknown>>();
  return serve(
    (call, res) => {
      if (call.headers['user-agent'] === undefined)
        return json(res, 403, { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' });
      if (call.headers.authorization !== `Bearer ${token}`)
        return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      const path = call.path.split('?')[0]!;
      if (call.method === 'GET' && path === '/user') return json(res, 200, { login: 'suite-bot', id: 42, type: 'User' });
      const repo = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/([0-9]+))?$/.exec(path);
      if (repo === null || repo[1] !== 'suite-org' || repo[2] !== 'suite-repo')
        return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      if (call.method === 'POST' && repo[3] === undefined) {
        const body = parse(call.body);
        if (body === undefined || typeof body.title !== 'string' || body.title === '') {
          return json(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }] });
        }
        const number = issues.size + 1;
        const issue = {
          id: 1000 + number,
          number,
          title: body.title,
          body: body.body ?? null,
          state: 'open',
          html_url: `https://github.com/suite-org/suite-repo/issues/${number}`,
          user: { login: 'suite-bot' },
          labels: ((body.labels as string[] | undefined) ?? []).map((name, i) => ({ id: i + 1, name })),
          created_at: '2026-01-01T00:00:00Z',
        };
        issues.set(number, issue);
        return json(res, 201, issue);
      }
      if (call.method === 'GET' && repo[3] !== undefined) {
        const issue = issues.get(Number(repo[3]));
        return issue === undefined ? json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }) : json(res, 200, issue);
      }
      return json(res, 404, { message: 'Not Found' });
    },
    (call) => call.method !== 'GET' && call.method !== 'HEAD',
  );
}

/**
 * A Standard Webhooks receiver (https://www.standardwebhooks.com): checks webhook-id,
 * webhook-timestamp (within 5 minutes) and webhook-signature (`v1,` base64 HMAC-SHA256 of
 * `id.timestamp.body` under the base64-decoded secret) itself, with node:crypto, independently of
 * the library the suite signs with. 204 when they verify, 401 when not. GET /health answers 200.
 */
export function fakeWebhookReceiver(secret: string): Promise<FakeServer & { verified: () => RecordedCall[] }> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const verified: RecordedCall[] = [];
  const check = (call: RecordedCall): boolean => {
    const id = call.headers['webhook-id'];
    const timestamp = call.headers['webhook-timestamp'];
    const signatures = call.headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
    if (!/^[0-9]+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${call.body}`).digest();
    return signatures.split(' ').some((s) => {
      const [version, b64] = s.split(',');
      if (version !== 'v1' || b64 === undefined) return false;
      const given = Buffer.from(b64, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  };
  return serve(
    (call, res) => {
      if (call.method === 'GET' && call.path === '/health') return json(res, 200, { status: 'ok' });
      if (call.method === 'POST' && call.path === '/hooks') {
        if (!check(call)) return json(res, 401, { error: 'signature does not verify' });
        verified.push(call);
        res.writeHead(204).end();
        return;
      }
      json(res, 404, { error: 'not found' });
    },
    (call) => call.method !== 'GET',
  ).then((s) => ({ ...s, verified: () => verified }));
}
