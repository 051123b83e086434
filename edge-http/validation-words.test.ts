import { afterEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../testing/edge-app.ts';

/** Issue 36, item 10: a schema error says what to send, not the validator's own words. */
const Body = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 64 }),
    proof: Type.Optional(
      Type.Union([
        Type.Object({ nonce: Type.String(), signature: Type.String() }, { additionalProperties: false }),
        Type.Object({ jws: Type.String() }, { additionalProperties: false }),
      ]),
    ),
  },
  { additionalProperties: false },
);

let t: TestApp;
afterEach(async () => {
  await t.app.close();
});

async function send(payload: unknown): Promise<string> {
  t = await testApp((app) => {
    app.post('/act', { config: { authority: { kind: 'public' } }, schema: { body: Body } }, async () => ({}));
  });
  const res = await t.app.inject({ method: 'POST', url: '/act', payload: payload as object });
  expect(res.statusCode).toBe(400);
  return (res.json() as { error: { message: string } }).error.message;
}

describe('validator messages in words', () => {
  it('names a missing field with what it takes', async () => {
    expect(await send({})).toBe('body is missing action (a string of 1 to 64 characters)');
  });

  it('names the shapes a field of several shapes accepts', async () => {
    expect(await send({ action: 'a', proof: 7 })).toBe('body/proof must be an object with fields nonce, signature, or an object with fields jws');
  });

  it('names an unknown field and the fields accepted', async () => {
    expect(await send({ action: 'a', colour: 'red' })).toBe('body has a field it does not accept (colour); send only action, proof');
  });
});
