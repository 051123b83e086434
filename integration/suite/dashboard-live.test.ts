import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import WebSocket from 'ws';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/** The dashboard's live socket (GET /live on 3001) against a real suite in this process. */
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

interface Opened {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Connects as a browser does: the token offered as a subprotocol beside the dashboard's own. */
function open(token: string): Promise<Opened> {
  const ws = new WebSocket(`${t.url('dashboard', '/live').replace('http', 'ws')}`, ['suite.live.v1', `bearer.${token}`]);
  const messages: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

async function until<T>(find: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = find();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function record(token: string, subject: string): Promise<{ id: string; seq: number }> {
  const res = await fetch(t.url('token', '/executions'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject, module: 'live', action: 'append', input: { subject }, outcome: 'success' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; seq: number };
}

/** Records a trust event (trust:write); answers its id, which its trust.changed broadcast names. */
async function trustChange(token?: string): Promise<string> {
  const writer = token ?? (await t.mint(['trust:write'])).token;
  const res = await fetch(t.url('trust', '/events'), {
    method: 'POST',
    headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      subjectId: 'live-subject',
      kind: 'task-succeeded',
      summary: 'done',
      proof: { url: 'https://example.org/x', sha256: 'ab'.repeat(32) },
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('GET /live, the dashboard socket', () => {
  it("greets with the token's subject and scopes and answers with its own subprotocol, never the token", async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'watcher' });
    const c = await open(token);
    expect(c.ws.protocol).toBe('suite.live.v1');
    const hello = await until(() => c.messages.find((m) => m.kind === 'hello'));
    expect(hello).toMatchObject({ sub: 'watcher', scope: ['execution:read'] });
    c.ws.close();
  });

  it('forwards a trace appended through the API to a token that reads the chain, and not to one that does not', async () => {
    const reader = await open((await t.mint(['execution:read'])).token);
    const narrow = await open((await t.mint(['trust:read'])).token);
    const writer = (await t.mint(['execution:record'])).token;
    const made = await record(writer, 'forwarded');
    const seen = await until(() => reader.messages.find((m) => m.kind === 'trace.appended' && m.id === made.id));
    expect(seen).toMatchObject({ seq: made.seq, subject: 'forwarded', outcome: 'success' });
    // The trace's broadcast is over (the reader has it); a trust change made now reaches the narrow
    // socket after anything that broadcast sent it, so once it is there, nothing else is on the way.
    const change = await trustChange();
    await until(() => narrow.messages.find((m) => m.kind === 'trust.changed' && m.id === change));
    expect(narrow.messages.some((m) => m.kind === 'trace.appended')).toBe(false);
    reader.ws.close();
    narrow.ws.close();
  });

  it('tells a client its token was revoked and closes with 4401', async () => {
    const minted = await t.mint(['execution:read']);
    const c = await open(minted.token);
    await until(() => c.messages.find((m) => m.kind === 'hello'));
    const res = await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: minted.jti }),
    });
    expect(res.status).toBe(200);
    expect(await c.closed).toEqual({ code: 4401, reason: 'token revoked' });
    expect(c.messages.at(-1)).toEqual({ kind: 'bye', reason: 'token revoked' });
    // And it cannot come back with it.
    await expect(open(minted.token)).rejects.toThrow('upgrade refused: 401');
  });

  it('forwards revocations to a token that may revoke, and closes a token that expires with 4401', async () => {
    const admin = await open((await t.mint(['auth:token:revoke'])).token);
    const reader = await open((await t.mint(['execution:read'])).token);
    const victim = await t.mint(['execution:read']);
    await fetch(t.url('token', '/auth/token/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ jti: victim.jti }),
    });
    expect(await until(() => admin.messages.find((m) => m.kind === 'revocation'))).toEqual({ kind: 'revocation', jti: victim.jti, exp: victim.exp });
    expect(reader.messages.some((m) => m.kind === 'revocation')).toBe(false);
    admin.ws.close();
    reader.ws.close();

    const short = await open((await t.mint(['execution:read'], { expiresIn: '2s' })).token);
    expect(await short.closed).toEqual({ code: 4401, reason: 'token expired' });
  });

  it("forwards the scheduler's events to a token that reads the queue, and not to one that does not", async () => {
    const target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const watcher = await open((await t.mint(['queue:read'])).token);
      const narrow = await open((await t.mint(['execution:read'])).token);
      const writer = (await t.mint(['queue:write'])).token;
      const res = await fetch(t.url('scheduler', '/queue'), {
        method: 'POST',
        headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ task: { type: 'http', url: `http://127.0.0.1:${(target.address() as { port: number }).port}/` } }),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const events = () => watcher.messages.filter((m) => m.kind === 'scheduler.event').map((m) => m.event as { kind: string; taskId: string; detail: string });
      await until(() => events().find((e) => e.taskId === id && e.kind === 'task-queued'));
      const attempt = await until(() => events().find((e) => e.taskId === id && e.kind === 'task-attempt'), 10_000);
      expect(attempt.detail).toContain('succeeded');
      expect(narrow.messages.some((m) => m.kind === 'scheduler.event')).toBe(false);
      watcher.ws.close();
      narrow.ws.close();
    } finally {
      target.close();
    }
  });

  it("forwards a benchmark job's progress to a token that reads runs", async () => {
    const target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const watcher = await open((await t.mint(['bench:read'])).token);
      const runner = (await t.mint(['bench:run'])).token;
      const res = await fetch(t.url('bench', '/run'), {
        method: 'POST',
        headers: { authorization: `Bearer ${runner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'http', url: `http://127.0.0.1:${(target.address() as { port: number }).port}/`, testRuns: 5, warmupRuns: 0 }),
      });
      expect(res.status).toBe(202);
      const { jobId } = (await res.json()) as { jobId: string };
      const done = await until(() => watcher.messages.find((m) => m.kind === 'bench.progress' && m.jobId === jobId && m.status === 'succeeded'), 15_000);
      expect(done).toMatchObject({ done: 5, total: 5 });
      watcher.ws.close();
    } finally {
      target.close();
    }
  });

  it('tells a token that reads trust when the trust service writes, and not one that does not', async () => {
    const watcher = await open((await t.mint(['trust:read'])).token);
    const narrow = await open((await t.mint(['execution:read'])).token);
    const writer = (await t.mint(['trust:write'])).token;
    const id = await trustChange(writer);
    const seen = await until(() => watcher.messages.find((m) => m.kind === 'trust.changed' && m.id === id));
    expect(seen).toMatchObject({ what: 'record-event', subjectId: 'live-subject' });
    // As above, the other way round: a trace appended now reaches the narrow socket after the change would have.
    const made = await record((await t.mint(['execution:record'])).token, 'after-the-change');
    await until(() => narrow.messages.find((m) => m.kind === 'trace.appended' && m.id === made.id));
    expect(narrow.messages.some((m) => m.kind === 'trust.changed')).toBe(false);
    watcher.ws.close();
    narrow.ws.close();
  });

  it('refuses the upgrade without a token or with a bad one (401)', async () => {
    await expect(open('not.a.token')).rejects.toThrow('upgrade refused: 401');
    const bare = new WebSocket(t.url('dashboard', '/live').replace('http', 'ws'), ['suite.live.v1']);
    const status = await new Promise<number>((resolve) => bare.once('unexpected-response', (_q, r) => resolve(r.statusCode ?? 0)));
    expect(status).toBe(401);
  });

  it('answers a plain GET /live with 400 naming the subprotocols', async () => {
    const { token } = await t.mint(['execution:read']);
    const res = await fetch(t.url('dashboard', '/live'), { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('bearer.<token>');
  });
});
