import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kidFor } from '../../core/capability/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { caller } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 7, through the real API: tokens signed with the suite's own secret but of a shape
 * the issuer never mints. `exp` as a float made `POST /auth/token/validate` answer 500 ("reply value
 * is invalid: /exp must be integer"); the others were accepted. Each is now `valid:false` (400) at
 * validation, and 401 TOKEN_INVALID as a bearer.
 */
let t: TestSuite;
let call: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await startTestSuite();
  call = caller(t);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function signed(payload: Record<string, unknown> | string): string {
  const secret = t.config.hmacSecrets[0] as string;
  const input = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: kidFor(secret) })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  sub: 'agent-1',
  scope: ['*'],
  jti: `j-${Math.random()}`,
  iat: now() - 5,
  exp: now() + 600,
  ...extra,
});

const MALFORMED: Array<[string, () => string]> = [
  ['exp a float', () => signed(claims({ exp: now() + 600.5 }))],
  ['iat a day ahead', () => signed(claims({ iat: now() + 86_400, exp: now() + 90_000 }))],
  ['exp 1e20', () => signed(claims({ exp: 1e20 }))],
  ['sub empty', () => signed(claims({ sub: '' }))],
  ['sub holding a NUL', () => signed(claims({ sub: 'agent\u00001' }))],
  ['ten an array', () => signed(claims({ ten: ['ten_a'] }))],
  ['duplicate scope keys', () => signed(JSON.stringify(claims({ scope: ['read:x'] })).replace('{', '{"scope":["*"],'))],
  ['a trailing = on the signature', () => `${signed(claims())}=`],
];

describe('tokens the issuer would never mint', () => {
  it('accepts the control: a well-formed token signed the same way', async () => {
    const r = await call('/auth/token/validate', { admin: true, body: { token: signed(claims()) } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.valid).toBe(true);
  });

  it.each(MALFORMED)('answers validate of a token with %s with 400 valid:false, never 500, and refuses it as a bearer', async (_, make) => {
    const token = make();
    const r = await call('/auth/token/validate', { admin: true, body: { token } });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toEqual({ valid: false, error: 'TOKEN_INVALID' });
    const used = await call('/audit', { token });
    expect(used.status, JSON.stringify(used.body)).toBe(401);
    expect(used.body.error.code).toBe('TOKEN_INVALID');
  });
});
