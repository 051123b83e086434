import { afterEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { ERROR_CODES, SuiteError, type ErrorCode } from '../bus/index.ts';
import { sendResult } from './plugins/errors.ts';
import { HTTP_STATUS } from './status.ts';
import { testApp, type TestApp } from '../testing/edge-app.ts';

const PUBLIC = { authority: { kind: 'public' as const } };

const TokenRequest = Type.Object({
  sub: Type.String(),
  scope: Type.Array(Type.String()),
  result: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
});

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

async function build(): Promise<TestApp> {
  return testApp(
    (app) => {
      app.post('/tokens', { config: PUBLIC, schema: { body: TokenRequest } }, async (request) => ({ sub: request.body.sub }));
      app.get('/throws/:code', { config: PUBLIC }, async (request) => {
        throw new SuiteError((request.params as { code: ErrorCode }).code, 'thrown on purpose');
      });
      app.get('/boom', { config: PUBLIC }, async () => {
        throw new Error('database password is hunter2');
      });
      app.get('/result/:ok', { config: PUBLIC }, async (request, reply) => {
        const ok = (request.params as { ok: string }).ok === 'yes';
        return sendResult(reply, ok ? { ok: true, value: { id: 'x' } } : { ok: false, error: { code: 'CONFLICT', message: 'already there' } }, 201);
      });
    },
    { bodyLimit: 1024 },
  );
}

describe('error shape', () => {
  it('answers an unknown route with 404 NOT_FOUND in the error shape', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route GET /nowhere?x=1' } });
  });

  it('answers a served path under a wrong method with 405 METHOD_NOT_ALLOWED and Allow naming the methods (issue 36)', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'GET', url: '/tokens' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: 'GET is not served for /tokens; send POST' } });
    const param = await t.app.inject({ method: 'DELETE', url: '/result/yes' });
    expect(param.statusCode).toBe(405);
    expect(param.headers.allow).toBe('GET, HEAD');
  });

  it('answers malformed JSON with 400 INVALID_REQUEST without quoting the body back', async () => {
    t = await build();
    const res = await t.app.inject({
      method: 'POST',
      url: '/tokens',
      headers: { 'content-type': 'application/json' },
      payload: '{"sub": "secret-ish',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'body is not valid JSON' } });
  });

  it('answers a schema violation with 400 naming the field', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', payload: { sub: 'a', scope: 'read:x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'body/scope must be an array of strings' } });
  });

  it('names a missing required field', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', payload: { scope: [] } });
    expect(res.json().error.message).toBe('body is missing sub (a string)');
  });

  it('reports a failed union as the allowed values, not the first branch', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', payload: { sub: 'a', scope: [], result: 'maybe' } });
    expect(res.json().error.message).toBe('body/result must be one of "allow", "deny"');
  });

  it('does not coerce body types (a string is not an array of one)', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', payload: { sub: 1, scope: [] } });
    expect(res.json().error.message).toBe('body/sub must be a string');
  });

  it('answers a body over the limit with 400 INVALID_REQUEST', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', payload: { sub: 'x'.repeat(2000), scope: [] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'body is too large' } });
  });

  it('answers a content-type other than JSON with 400 INVALID_REQUEST', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'POST', url: '/tokens', headers: { 'content-type': 'text/plain' }, payload: 'hi' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_REQUEST');
  });

  it('answers a path parameter longer than the router allows with 400 INVALID_REQUEST, not 500', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'GET', url: `/throws/${'a'.repeat(1100)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'a path parameter is longer than 1024 characters' } });
  });

  it('maps every catalogue code to the status of the one table', async () => {
    t = await build();
    const expected: Record<ErrorCode, number> = {
      INVALID_REQUEST: 400,
      TOKEN_MISSING: 401,
      TOKEN_INVALID: 401,
      TOKEN_EXPIRED: 401,
      TOKEN_REVOKED: 401,
      TOKEN_AUDIENCE_MISMATCH: 401,
      TENANT_KEY_INVALID: 401,
      PROOF_REQUIRED: 401,
      QUOTA_EXCEEDED: 402,
      CAPABILITY_INSUFFICIENT: 403,
      TENANT_SUSPENDED: 403,
      IDENTITY_SUSPENDED: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      RECORD_PRUNED: 410,
      CONFLICT: 409,
      RATE_LIMITED: 429,
      REVOCATION_UNAVAILABLE: 503,
      SERVICE_UNAVAILABLE: 503,
      INTERNAL_ERROR: 500,
      CONNECTOR_NOT_CONFIGURED: 503,
      CREDENTIALS_REJECTED: 503,
      PROVIDER_REJECTED: 422,
      PROVIDER_UNAVAILABLE: 502,
      OUTBOUND_REFUSED: 403,
    };
    expect(HTTP_STATUS).toEqual(expected);
    for (const code of ERROR_CODES) {
      const res = await t.app.inject({ method: 'GET', url: `/throws/${code}` });
      expect(res.statusCode, code).toBe(expected[code]);
      expect(res.json().error.code).toBe(code);
    }
  });

  it('keeps the message of a thrown SuiteError but not of an internal one', async () => {
    t = await build();
    expect((await t.app.inject({ url: '/throws/CONFLICT' })).json().error.message).toBe('thrown on purpose');
    expect((await t.app.inject({ url: '/throws/INTERNAL_ERROR' })).json().error.message).toBe('internal error');
  });

  it('answers an unknown error with a generic 500 and logs the real one', async () => {
    t = await build();
    const res = await t.app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
    expect(t.rawLog()).toContain('database password is hunter2');
  });

  it('answers a bus Result: the value with the given status, an error with its code', async () => {
    t = await build();
    const ok = await t.app.inject({ url: '/result/yes' });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ id: 'x' });
    const err = await t.app.inject({ url: '/result/no' });
    expect(err.statusCode).toBe(409);
    expect(err.json()).toEqual({ error: { code: 'CONFLICT', message: 'already there' } });
  });
});

describe('a 503 whose outcome is unknown', () => {
  async function unknownOutcome(): Promise<TestApp> {
    return testApp((app) => {
      app.post('/writes', { config: PUBLIC }, async (_request, reply) =>
        sendResult(reply, {
          ok: false,
          error: {
            code: 'SERVICE_UNAVAILABLE',
            message:
              'suite.executions.record: request to suite.executions.record timed out after 5000 ms; the outcome is unknown: it may have been carried out',
          },
        }),
      );
      app.post('/refused', { config: PUBLIC }, async (_request, reply) =>
        sendResult(reply, {
          ok: false,
          error: { code: 'SERVICE_UNAVAILABLE', message: 'storage unavailable: nothing was done; try again shortly' },
        }),
      );
    });
  }

  it('names the Idempotency-Key to retry with, or warns that a retry without one may write twice; a 503 where nothing was done is left alone', async () => {
    t = await unknownOutcome();
    const keyed = await t.app.inject({ method: 'POST', url: '/writes', headers: { 'idempotency-key': 'order-42' } });
    expect(keyed.statusCode).toBe(503);
    expect(keyed.json()).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/the outcome is unknown: it may have been carried out; retry with the same Idempotency-Key: "order-42"$/),
      },
    });
    const unkeyed = await t.app.inject({ method: 'POST', url: '/writes' });
    expect(unkeyed.json().error.message).toMatch(/; a retry without an Idempotency-Key may carry it out twice$/);
    const refused = await t.app.inject({ method: 'POST', url: '/refused', headers: { 'idempotency-key': 'order-42' } });
    expect(refused.json()).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: 'storage unavailable: nothing was done; try again shortly' } });
  });
});
