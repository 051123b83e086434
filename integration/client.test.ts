import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, ConflictError, createSuiteClient, NotFoundError, TransportError, UnavailableError, type SuiteClient } from '../client/src/index.ts';
import { verifyExport, verifyReceipt, verifyRecord, type ExecutionReceipt } from '../client/src/verify.ts';
import { logKey } from '../core/tlog/index.ts';
import { generateKeyPairSync } from 'node:crypto';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { closedAddress } from '../testing/closed-address.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The client library (client/) against the real suite: every HTTP service answers through it, a
 * record's ambiguous outcome is retried with the same Idempotency-Key and written once, and what it
 * reads verifies offline with the project's own verification code.
 */

let suite: TestSuite;
let client: SuiteClient;
let admin: SuiteClient;
let publicKey: string;
const SCOPES = [
  'execution:record',
  'execution:read',
  'auth:token:validate',
  'audit:read',
  'schedule:create',
  'schedule:read',
  'bench:run',
  'bench:read',
  'trust:write',
  'trust:read',
];

beforeAll(async () => {
  suite = await startTestSuite();
  const urls = {
    token: suite.url('token'),
    scheduler: suite.url('scheduler'),
    bench: suite.url('bench'),
    connector: suite.url('connector'),
    trust: suite.url('trust'),
  };
  admin = createSuiteClient({ urls, adminKey: suite.adminKey });
  const minted = await admin.tokens.mint({ sub: 'client-agent', scope: SCOPES });
  client = createSuiteClient({ urls, token: minted.token });
  publicKey = (await client.token.get('/executions/public-key')).publicKey;
}, machineTimeout(120_000));

afterAll(async () => {
  await suite?.stop();
});

const execution = (action: string) => ({
  subject: 'client-agent',
  module: 'client-test',
  action,
  input: { action },
  output: { ok: true },
  outcome: 'success' as const,
});

describe('the client library against the real suite', () => {
  it('mints, validates with requiredScope, and revokes a token', async () => {
    const minted = await admin.tokens.mint({ sub: 'short-lived', scope: ['audit:read'] });
    expect(await client.tokens.validate(minted.token, 'audit:read')).toMatchObject({
      valid: true,
      sub: 'short-lived',
      requiredScope: 'audit:read',
      scopeSatisfied: true,
    });
    // A token that does not grant the required scope fails validation (400), which is an answer, not an error.
    expect(await client.tokens.validate(minted.token, 'execution:record')).toMatchObject({
      valid: false,
      requiredScope: 'execution:record',
      scopeSatisfied: false,
    });
    await admin.tokens.revoke({ jti: minted.jti });
    await expect.poll(async () => (await client.tokens.validate(minted.token)).valid, { timeout: 10_000 }).toBe(false);
    expect(await client.tokens.validate('not.a.token')).toMatchObject({ valid: false });
  });

  it('records an execution, reads it back, and finds it in the audit trail of the token service', async () => {
    const made = await client.executions.record(execution('read-back'));
    expect(made.replayed).toBe(false);
    const record = made.record;
    const read = await client.token.get('/executions/{id}', { path: { id: record.id } });
    expect(read.hash).toBe(record.hash);
    const audit = await client.token.get('/audit', { query: { subject: 'client-agent', limit: 5 } });
    expect(audit.entries.length).toBeGreaterThan(0);
  });

  it('answers each service: scheduler, bench, connector and trust, reads and writes', async () => {
    const id = `client-${Date.now()}`;
    const created = await client.scheduler.post('/schedule', {
      body: { id, cron: '0 3 * * *', task: { type: 'http', url: 'http://127.0.0.1:9/never', method: 'GET' } },
    });
    expect(created.id).toBe(id);
    expect((await client.scheduler.get('/schedule')).schedules.map((s) => s.id)).toContain(id);
    expect(await client.bench.get('/history', { query: { name: 'none-yet' } } as never)).toBeDefined();
    expect((await client.connector.get('/connectors')).connectors.length).toBeGreaterThan(0);
    const record = (await client.executions.record(execution('trust-proof'))).record;
    const event = await client.trust.post('/events', { body: { subjectId: 'client-agent', kind: 'task-succeeded', proof: { executionId: record.id } } });
    expect(event.id).toEqual(expect.any(String));
    expect(await client.trust.get('/score/{subjectId}', { path: { subjectId: 'client-agent' } })).toMatchObject({ subjectId: 'client-agent' });
  });

  it('throws the error class of each family, with the spec code', async () => {
    await expect(client.token.get('/executions/{id}', { path: { id: `exec_${'0'.repeat(32)}` } })).rejects.toBeInstanceOf(NotFoundError);
    await expect(createSuiteClient({ urls: { token: suite.url('token') } }).token.get('/audit')).rejects.toMatchObject({
      name: 'AuthError',
      status: 401,
      code: 'TOKEN_MISSING',
    });
    await expect(client.token.get('/admin/tenants' as never)).rejects.toBeInstanceOf(AuthError);
    await expect(client.executions.record({ ...execution('bad'), action: '' })).rejects.toMatchObject({
      name: 'InvalidRequestError',
      status: 400,
      code: 'INVALID_REQUEST',
    });
    const key = `key-${Date.now()}`;
    await client.executions.record(execution('first'), { idempotencyKey: key });
    await expect(client.executions.record(execution('second'), { idempotencyKey: key })).rejects.toBeInstanceOf(ConflictError);
  });

  it('gives up on a listener that is not there with a transport error that says nothing was sent', async () => {
    const nowhere = await closedAddress();
    try {
      const gone = createSuiteClient({ urls: { token: nowhere.url }, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 } });
      await expect(gone.token.get('/plans')).rejects.toMatchObject({ name: 'TransportError', ambiguous: false });
    } finally {
      await nowhere.release();
    }
  });

  it('verifies a record and an export offline with the public key, and finds a tampered export bad', async () => {
    const made = (await client.executions.record(execution('offline'))).record;
    expect(verifyRecord(made, publicKey)).toBeNull();
    expect(verifyRecord({ ...made, action: 'something-else' }, publicKey)).toMatch(/hash/i);
    const exported = await client.token.get('/executions/export');
    const good = verifyExport(exported, publicKey);
    expect(good).toMatchObject({ valid: true });
    expect(good.records).toBeGreaterThan(2);
    const tampered = exported.replace('"action":"offline"', '"action":"offlinf"');
    expect(tampered).not.toBe(exported);
    expect(verifyExport(tampered, publicKey)).toMatchObject({ valid: false, reason: expect.stringMatching(/hash/i) });
  });

  it('verifies a receipt offline with the trace key and the log vkey, and refuses it altered or under another log key', async () => {
    const made = (await client.executions.record(execution('receipt'))).record;
    const logVkey = (await (await fetch(suite.url('token', '/executions/log/vkey'))).text()).trim();
    let receipt: ExecutionReceipt | undefined;
    // A checkpoint covers a record within a second; until then the route answers 503.
    await expect
      .poll(
        async () => {
          receipt = (await client.token.get('/executions/{id}/receipt', { path: { id: made.id } }).catch(() => undefined)) as ExecutionReceipt | undefined;
          return receipt?.leafIndex;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(made.seq - 1);
    const r = receipt as ExecutionReceipt;
    expect(verifyReceipt(r, { publicKeyPem: publicKey, logVkey })).toEqual({ ok: true, leafIndex: made.seq - 1, treeSize: r.treeSize, cosignedBy: [] });
    expect(verifyReceipt({ ...r, record: { ...r.record, action: 'other' } }, { publicKeyPem: publicKey, logVkey })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/hash/),
    });
    const flipped = r.proof.length > 0 ? { ...r, proof: [Buffer.alloc(32, 7).toString('base64'), ...r.proof.slice(1)] } : { ...r, treeSize: r.treeSize + 1 };
    expect(verifyReceipt(flipped, { publicKeyPem: publicKey, logVkey })).toMatchObject({ ok: false });
    const otherLog = logKey(logVkey.slice(0, logVkey.indexOf('+')), generateKeyPairSync('ed25519').privateKey).vkey;
    expect(verifyReceipt(r, { publicKeyPem: publicKey, logVkey: otherLog })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no signature by a known key/),
    });
    expect(verifyReceipt(r, { publicKeyPem: publicKey, logVkey, quorum: 1 })).toMatchObject({ ok: false, reason: expect.stringMatching(/quorum of 1/) });
  });
});

/** In front of the token listener: the first `POST /executions` is forwarded, then answered as the test says. */
async function faultyProxy(target: string, fault: 'cut' | '503'): Promise<{ url: string; forwarded: () => number; close: () => Promise<void> }> {
  let faults = 0;
  let forwarded = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        const body: Buffer[] = [];
        up.on('data', (c: Buffer) => body.push(c));
        up.on('end', () => {
          forwarded++;
          if (req.method === 'POST' && req.url === '/executions' && faults++ === 0) {
            // The suite committed the record; the client never hears of it.
            if (fault === 'cut') return req.socket.destroy();
            res.writeHead(503, { 'content-type': 'application/json' });
            return res.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'forced by the test after the suite answered' } }));
          }
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a record whose outcome is unknown', () => {
  for (const fault of ['503', 'cut'] as const) {
    it(`is sent again with the same Idempotency-Key after a ${fault === '503' ? 'forced 503' : 'connection reset'}, and is on the chain once`, async () => {
      const proxy = await faultyProxy(suite.url('token'), fault);
      try {
        const token = (await admin.tokens.mint({ sub: `retry-${fault}`, scope: ['execution:record', 'execution:read'] })).token;
        const through = createSuiteClient({
          urls: { token: proxy.url },
          token,
          retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 1000 },
        });
        const made = await through.executions.record({ ...execution(`retry-${fault}`), subject: `retry-${fault}` });
        expect(proxy.forwarded()).toBe(2);
        expect(made.replayed).toBe(true); // the second attempt found the record the first one made
        const direct = createSuiteClient({ urls: { token: suite.url('token') }, token });
        const listed = await direct.token.get('/executions', { query: { subject: `retry-${fault}`, limit: 10 } });
        expect(listed.records.map((r) => r.id)).toEqual([made.record.id]);
      } finally {
        await proxy.close();
      }
    });
  }

  it('is not sent again without a retry policy: the caller gets the 503 and the key to retry with', async () => {
    const proxy = await faultyProxy(suite.url('token'), '503');
    try {
      const token = (await admin.tokens.mint({ sub: 'no-retry', scope: ['execution:record'] })).token;
      const once = createSuiteClient({ urls: { token: proxy.url }, token, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 } });
      const error = await once.executions.record(execution('no-retry'), { idempotencyKey: 'k-no-retry' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      const again = await once.executions.record(execution('no-retry'), { idempotencyKey: 'k-no-retry' });
      expect(again.replayed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('reports a timeout as an ambiguous transport error', async () => {
    const silent = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const c = createSuiteClient({
        urls: { token: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` },
        timeoutMs: 200,
        retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 },
      });
      const error = await c.token.get('/plans').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect(error).toMatchObject({ timedOut: true, ambiguous: true });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
