import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DEPTH, MAX_STRING_LENGTH, hashedJson } from '../bus/index.ts';
import { testApp, type TestApp } from '../testing/edge-app.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.app.close();
  t = undefined;
});

const PUBLIC = { authority: { kind: 'public' as const } };

/** Routes with and without schemas: the rule must hold for both. */
async function build(): Promise<TestApp> {
  t = await testApp((app) => {
    app.get('/plain', { config: PUBLIC }, async () => ({ ok: true }));
    app.get('/things/:id', { config: PUBLIC, schema: { params: Type.Object({ id: Type.String({ maxLength: 100_000 }) }) } }, async () => ({ ok: true }));
    app.get('/loose/:id', { config: PUBLIC }, async () => ({ ok: true }));
    app.get('/search', { config: PUBLIC, schema: { querystring: Type.Object({ q: Type.Optional(Type.String()) }) } }, async () => ({ ok: true }));
    app.post('/tokens', { config: PUBLIC, schema: { body: Type.Object({ sub: Type.String(), note: Type.Optional(Type.String()) }) } }, async () => ({
      ok: true,
    }));
    app.post('/records', { config: PUBLIC, schema: { body: Type.Object({ input: hashedJson() }) } }, async () => ({ ok: true }));
    app.post('/unchecked', { config: PUBLIC }, async () => ({ ok: true }));
  });
  return t;
}

const post = (url: string, payload: string) => t!.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
const refusal = (message: string) => ({ error: { code: 'INVALID_REQUEST', message } });

describe('the text rule at the HTTP edge', () => {
  it('refuses a NUL in a path parameter, with or without a params schema, naming it', async () => {
    const app = (await build()).app;
    const checked = await app.inject({ url: '/things/a%00b' });
    expect({ status: checked.statusCode, body: checked.json() }).toEqual({ status: 400, body: refusal('params/id must not contain NUL (U+0000)') });
    expect((await app.inject({ url: '/loose/a%00b' })).json()).toEqual(refusal('params/id must not contain NUL (U+0000)'));
    expect((await app.inject({ url: '/things/a%01b' })).statusCode).toBe(200);
  });

  it('refuses a NUL or a __proto__ key in a query string, whether or not the route declares one', async () => {
    const app = (await build()).app;
    expect((await app.inject({ url: '/plain?x=%00' })).json()).toEqual(refusal('querystring/x must not contain NUL (U+0000)'));
    expect((await app.inject({ url: '/search?q=a%00' })).json()).toEqual(refusal('querystring/q must not contain NUL (U+0000)'));
    expect((await app.inject({ url: '/plain?__proto__=1' })).json().error.message).toContain('"__proto__"');
    expect((await app.inject({ url: '/plain?x=1' })).statusCode).toBe(200);
  });

  it('refuses a NUL, a lone surrogate or an over-long string anywhere in a JSON body, with or without a body schema', async () => {
    await build();
    expect((await post('/tokens', '{"sub":"a\\u0000b"}')).json()).toEqual(refusal('body/sub must not contain NUL (U+0000)'));
    expect((await post('/tokens', '{"sub":"a","note":"\\ud800"}')).json()).toEqual(
      refusal('body/note must be well-formed Unicode (it holds a lone surrogate)'),
    );
    expect((await post('/tokens', JSON.stringify({ sub: 'x'.repeat(MAX_STRING_LENGTH + 1) }))).json()).toEqual(
      refusal(`body/sub must not have more than ${MAX_STRING_LENGTH} characters`),
    );
    expect((await post('/unchecked', '{"deep":{"er":["\\u0000"]}}')).json()).toEqual(refusal('body/deep/er/0 must not contain NUL (U+0000)'));
  });

  it('says why a __proto__ or constructor.prototype key is refused, instead of "not valid JSON"', async () => {
    await build();
    const proto = await post('/tokens', '{"sub":"a","__proto__":{"admin":true}}');
    expect({ status: proto.statusCode, body: proto.json() }).toEqual({
      status: 400,
      body: refusal('body must not have the key "__proto__" (it could set an object\'s prototype)'),
    });
    expect((await post('/unchecked', '{"a":{"constructor":{"prototype":{}}}}')).json().error.message).toMatch(/^body\/a must not have a "constructor" key/);
    expect((await post('/tokens', '{"sub": "secret-ish')).json()).toEqual(refusal('body is not valid JSON'));
  });

  it(`refuses a body nested deeper than ${MAX_DEPTH} levels, however deep, without a 500`, async () => {
    await build();
    for (const depth of [MAX_DEPTH + 1, 100_000]) {
      const res = await post('/unchecked', `${'['.repeat(depth)}${']'.repeat(depth)}`);
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 400,
        body: refusal(`body${'/0'.repeat(MAX_DEPTH)} must not be nested more than ${MAX_DEPTH} levels deep`),
      });
    }
  });

  it('lets hashed fields hold a NUL and long strings, but not a lone surrogate', async () => {
    await build();
    expect((await post('/records', JSON.stringify({ input: { text: `a\u0000${'x'.repeat(MAX_STRING_LENGTH)}` } }))).statusCode).toBe(200);
    expect((await post('/records', '{"input":"\\udc00"}')).json()).toEqual(refusal('body/input must be well-formed Unicode (it holds a lone surrogate)'));
  });
});
