import { afterEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../testing/edge-app.ts';

const AuditQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  result: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
});

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

async function build(): Promise<TestApp> {
  t = await testApp((app) => {
    app.get('/audit', { config: { authority: { kind: 'public' } }, schema: { querystring: AuditQuery } }, async (request) => {
      // Typed from the schema: limit and offset are numbers here.
      const { limit, offset } = request.query;
      return { limit: limit + 0, offset: offset + 0, result: request.query.result ?? null };
    });
    app.get(
      '/executions/:id',
      { config: { authority: { kind: 'public' } }, schema: { params: Type.Object({ id: Type.String({ maxLength: 8 }) }) } },
      async (request) => ({ id: request.params.id }),
    );
  });
  return t;
}

describe('request validation', () => {
  it('converts query strings to the schema types', async () => {
    await build();
    const res = await t.app.inject({ url: '/audit?limit=20&offset=5&result=deny' });
    expect(res.json()).toEqual({ limit: 20, offset: 5, result: 'deny' });
  });

  it('fills declared defaults', async () => {
    await build();
    expect((await t.app.inject({ url: '/audit' })).json()).toEqual({ limit: 50, offset: 0, result: null });
  });

  it('names the query field that is out of range', async () => {
    await build();
    const res = await t.app.inject({ url: '/audit?limit=501' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'querystring/limit must be <= 500' } });
  });

  it('names the query field that is not a number', async () => {
    await build();
    expect((await t.app.inject({ url: '/audit?limit=many' })).json().error.message).toBe(
      'querystring/limit must be a whole number in plain decimal digits (no sign +, leading zero, exponent, hex or spaces)',
    );
  });

  it('refuses a number spelled any way but plain decimal digits, rather than guessing what was meant', async () => {
    await build();
    for (const spelling of ['1.5', '1e2', '0x1', '+5', '05', '', '%205', '5%20', '1_0', 'Infinity']) {
      const res = await t.app.inject({ url: `/audit?limit=${spelling}` });
      expect(res.statusCode, spelling).toBe(400);
      expect(res.json().error.message, spelling).toMatch(/^querystring\/limit must be a whole number in plain decimal digits/);
    }
    expect((await t.app.inject({ url: '/audit?limit=7&offset=0' })).json()).toMatchObject({ limit: 7, offset: 0 });
  });

  it('validates path params', async () => {
    await build();
    const res = await t.app.inject({ url: '/executions/far-too-long-id' });
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'params/id must not have more than 8 characters' } });
  });

  it('answers an undecodable URL with 400 in the error shape', async () => {
    await build();
    const res = await t.app.inject({ url: '/executions/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_REQUEST');
    expect(res.headers['x-request-id']).toBeDefined();
  });
});
