import { afterAll, describe, expect, it } from 'vitest';
import { createHmac, generateKeyPairSync, sign as edSign, createSign } from 'node:crypto';
import { MAX_LIFETIME_SECONDS, createHmacKeyRing, kidFor } from '../../core/capability/index.ts';
import { TOKEN_CLOCK_SKEW_SECONDS, mintToken } from './jwt.ts';
import { TokenChecker } from './verifier.ts';

/**
 * The token attack corpus of issue 2: forged, altered and out-of-time tokens, every one of which
 * must be refused. Controls (tokens that must be accepted) sit beside the boundary cases so that a
 * checker refusing everything cannot pass.
 */

const SECRET = 'corpus-secret-0123456789-abcdefghijklmnop';
const NOW = 1_900_000_000;
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const kid = kidFor(SECRET);
const goodHeader = { alg: 'HS256', typ: 'at+jwt', kid };
const goodPayload = { sub: 'agent-1', scope: ['read:*'], jti: '7b0b3e8e-4a59-4f0f-9c37-2a3cf4b0d3a1', iat: NOW - 10, exp: NOW + 600 };

function hmacJwt(header: object, payload: object, alg = 'sha256', secret = SECRET): string {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${createHmac(alg, secret).update(signingInput).digest('base64url')}`;
}

function signRaw(header64: string, payload64: string): string {
  const signingInput = `${header64}.${payload64}`;
  return `${signingInput}.${createHmac('sha256', SECRET).update(signingInput).digest('base64url')}`;
}

/** The other spellings of a 32-byte base64url signature: the last character's two unused low bits set. */
function nonCanonicalLastChars(sig: string): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const at = alphabet.indexOf(sig.at(-1)!);
  return [1, 2, 3].map((low) => `${sig.slice(0, -1)}${alphabet[(at & ~3) | low]}`);
}

function casings(word: string): string[] {
  const out: string[] = [];
  for (let mask = 0; mask < 1 << word.length; mask++) {
    out.push([...word].map((c, i) => (mask & (1 << i) ? c.toUpperCase() : c)).join(''));
  }
  return out;
}

const refused: Array<{ name: string; token: string; audience?: string }> = [];
const add = (name: string, token: string, audience?: string) => refused.push(audience === undefined ? { name, token } : { name, token, audience });

const good = hmacJwt(goodHeader, goodPayload);
const [gh, gp, gs] = good.split('.') as [string, string, string];

for (const alg of casings('none')) {
  add(`alg ${alg}, empty signature`, `${b64({ ...goodHeader, alg })}.${gp}.`);
  add(`alg ${alg}, original signature`, `${b64({ ...goodHeader, alg })}.${gp}.${gs}`);
}
add('alg empty', `${b64({ ...goodHeader, alg: '' })}.${gp}.${gs}`);
const { alg: _dropped, ...noAlg } = goodHeader;
add('alg missing', hmacJwt(noAlg, goodPayload));
add('alg HS384 signed with the secret', hmacJwt({ ...goodHeader, alg: 'HS384' }, goodPayload, 'sha384'));
add('alg HS512 signed with the secret', hmacJwt({ ...goodHeader, alg: 'HS512' }, goodPayload, 'sha512'));
{
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = `${b64({ ...goodHeader, alg: 'RS256' })}.${gp}`;
  const sig = createSign('RSA-SHA256').update(input).sign(rsa.privateKey).toString('base64url');
  add('alg RS256 with an attacker key', `${input}.${sig}`);
  add('alg RS256 with the HMAC signature', `${input}.${gs}`);
  const ed = generateKeyPairSync('ed25519');
  const edInput = `${b64({ ...goodHeader, alg: 'EdDSA' })}.${gp}`;
  add('alg EdDSA with an attacker key', `${edInput}.${edSign(null, Buffer.from(edInput), ed.privateKey).toString('base64url')}`);
}
add('kid unknown', hmacJwt({ ...goodHeader, kid: 'hs256-unknownkid0' }, goodPayload));
add('kid a relative path', hmacJwt({ ...goodHeader, kid: '../../../../etc/passwd' }, goodPayload));
add('kid an absolute path', hmacJwt({ ...goodHeader, kid: '/dev/null' }, goodPayload));
add('kid missing', hmacJwt({ alg: 'HS256', typ: 'at+jwt' }, goodPayload));
add('crit header naming exp', hmacJwt({ ...goodHeader, crit: ['exp'] }, goodPayload));
add('crit header naming an extension', hmacJwt({ ...goodHeader, crit: ['x-suite'], 'x-suite': 1 }, goodPayload));
add('typ missing', hmacJwt({ alg: 'HS256', kid }, goodPayload));
add('typ JWT instead of at+jwt', hmacJwt({ ...goodHeader, typ: 'JWT' }, goodPayload));
add('signed with another secret', hmacJwt(goodHeader, goodPayload, 'sha256', 'another-secret-0123456789-abcdefghijklm'));
const sigBytes = Buffer.from(gs, 'base64url');
for (let bit = 0; bit < sigBytes.length * 8; bit++) {
  const flipped = Buffer.from(sigBytes);
  flipped[bit >> 3]! ^= 1 << (bit & 7);
  add(`signature bit ${bit} flipped`, `${gh}.${gp}.${flipped.toString('base64url')}`);
}
for (const keep of [0, 1, 16, 31]) add(`signature truncated to ${keep} bytes`, `${gh}.${gp}.${sigBytes.subarray(0, keep).toString('base64url')}`);
add('signature segment missing', `${gh}.${gp}`);
const payloadBytes = Buffer.from(gp, 'base64url');
for (let i = 0; i < payloadBytes.length; i++) {
  const altered = Buffer.from(payloadBytes);
  altered[i]! ^= 0x01;
  add(`payload byte ${i} flipped`, `${gh}.${altered.toString('base64url')}.${gs}`);
}
add('exp exactly now', hmacJwt(goodHeader, { ...goodPayload, exp: NOW }));
add('exp one second ago', hmacJwt(goodHeader, { ...goodPayload, exp: NOW - 1 }));
add('nbf one second ahead', hmacJwt(goodHeader, { ...goodPayload, nbf: NOW + 1 }));
add('token for another audience', hmacJwt(goodHeader, { ...goodPayload, aud: 'other-service' }), 'this-service');
add('token without audience where one is enforced', good, 'this-service');
add('scope claim not an array', hmacJwt(goodHeader, { ...goodPayload, scope: 'read:*' }));
add('sub claim missing', hmacJwt(goodHeader, { ...goodPayload, sub: undefined }));
add('exp claim missing', hmacJwt(goodHeader, { ...goodPayload, exp: undefined }));
// Issue 25, finding 7: tokens the issuer would never mint (they need the secret, but a token
// service should refuse them). docs/TOKENS-ISSUE.md, "What a token must be".
add('iat one day in the future', hmacJwt(goodHeader, { ...goodPayload, iat: NOW + 86_400, exp: NOW + 86_400 + 600 }));
add('iat 100 years in the future', hmacJwt(goodHeader, { ...goodPayload, iat: NOW + 100 * 365 * 86_400, exp: NOW + 100 * 365 * 86_400 + 600 }));
add(`iat beyond the skew (${TOKEN_CLOCK_SKEW_SECONDS + 1} s ahead)`, hmacJwt(goodHeader, { ...goodPayload, iat: NOW + TOKEN_CLOCK_SKEW_SECONDS + 1 }));
add('exp 1e20', hmacJwt(goodHeader, { ...goodPayload, exp: 1e20 }));
add('lifetime one second over the maximum', hmacJwt(goodHeader, { ...goodPayload, iat: NOW - 10, exp: NOW - 10 + MAX_LIFETIME_SECONDS + 1 }));
add('exp before iat', hmacJwt(goodHeader, { ...goodPayload, iat: NOW + 30, exp: NOW + 20 }));
add('exp a float', hmacJwt(goodHeader, { ...goodPayload, exp: NOW + 600.5 }));
add('iat a float', hmacJwt(goodHeader, { ...goodPayload, iat: NOW - 10.5 }));
add('iat a string', hmacJwt(goodHeader, { ...goodPayload, iat: String(NOW - 10) }));
add('sub empty', hmacJwt(goodHeader, { ...goodPayload, sub: '' }));
add('sub holding a NUL', hmacJwt(goodHeader, { ...goodPayload, sub: 'agent\u00001' }));
add('sub holding a zero-width space', hmacJwt(goodHeader, { ...goodPayload, sub: 'agent\u200b-1' }));
add('sub with a trailing space', hmacJwt(goodHeader, { ...goodPayload, sub: 'agent-1 ' }));
add('sub in NFD', hmacJwt(goodHeader, { ...goodPayload, sub: 'rene\u0301' }));
add('ten an array', hmacJwt(goodHeader, { ...goodPayload, ten: ['ten_a', 'ten_b'] }));
add('ten a number', hmacJwt(goodHeader, { ...goodPayload, ten: 7 }));
add('ten empty', hmacJwt(goodHeader, { ...goodPayload, ten: '' }));
add('prf a string', hmacJwt(goodHeader, { ...goodPayload, prf: 'yes' }));
add('aud an array', hmacJwt(goodHeader, { ...goodPayload, aud: ['a', 'b'] }));
add('jti empty', hmacJwt(goodHeader, { ...goodPayload, jti: '' }));
add('a scope entry not of the form resource:action', hmacJwt(goodHeader, { ...goodPayload, scope: ['read:*', 'admin'] }));
{
  const raw = JSON.stringify(goodPayload).replace('"scope":["read:*"]', '"scope":["read:x"],"scope":["*"]');
  add('duplicate scope keys in the payload JSON', signRaw(b64(goodHeader), b64(raw)));
  add('duplicate sub keys in the payload JSON', signRaw(b64(goodHeader), b64(JSON.stringify(goodPayload).replace('{', '{"sub":"other",'))));
  add('duplicate keys in the header JSON', signRaw(b64(JSON.stringify(goodHeader).replace('{', '{"kid":"x",')), gp));
}
// The signature segment in a spelling other than the one canonical base64url of its 32 bytes.
add('signature with a trailing =', `${gh}.${gp}.${gs}=`);
for (const alt of nonCanonicalLastChars(gs)) add(`signature last character ${alt.at(-1)} instead of ${gs.at(-1)}`, `${gh}.${gp}.${alt}`);
add('signature in standard base64 alphabet', `${gh}.${gp}.${Buffer.from(gs, 'base64url').toString('base64')}`);
add('not a JWT at all', 'not-a-token');
add('empty token', '');

const ring = await createHmacKeyRing([SECRET]);
const revocations = { isRevoked: () => false, trusted: () => true };
const checkerFor = (audience?: string) => new TokenChecker({ ring, revocations, clock: () => NOW * 1000, ...(audience !== undefined ? { audience } : {}) });

describe('token attack corpus', () => {
  let refusedCount = 0;
  afterAll(() => {
    // The issue asks for the count to be printed.
    console.log(`token attack corpus: ${refusedCount} of ${refused.length} forged or altered tokens refused`);
  });

  it.each(refused)('refuses: $name', async ({ token, audience }) => {
    const result = await checkerFor(audience).check(token);
    expect(result.ok).toBe(false);
    refusedCount++;
  });

  it('accepts the untouched control token and boundary controls one second inside', async () => {
    expect((await checkerFor().check(good)).ok).toBe(true);
    expect((await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, exp: NOW + 1 }))).ok).toBe(true);
    expect((await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, nbf: NOW }))).ok).toBe(true);
    const aud = hmacJwt(goodHeader, { ...goodPayload, aud: 'this-service' });
    expect((await checkerFor('this-service').check(aud)).ok).toBe(true);
    // Issued at the edge of the clock skew, and for exactly the longest lifetime.
    expect((await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, iat: NOW + TOKEN_CLOCK_SKEW_SECONDS }))).ok).toBe(true);
    expect((await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, iat: NOW - 10, exp: NOW - 10 + MAX_LIFETIME_SECONDS }))).ok).toBe(true);
    expect((await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, ten: 'ten_a', prf: true }))).ok).toBe(true);
  });

  it('accepts a token minted by the service itself', async () => {
    const minted = await mintToken(ring, { sub: 'agent-1', scope: ['read:*'], lifetimeSeconds: 60, now: NOW });
    const result = await checkerFor().check(minted.token);
    expect(result).toMatchObject({ ok: true, claims: { sub: 'agent-1', scope: ['read:*'], jti: minted.jti } });
  });

  it('names the expiry and audience failures with their own codes', async () => {
    const expired = await checkerFor().check(hmacJwt(goodHeader, { ...goodPayload, exp: NOW }));
    expect(expired).toMatchObject({ ok: false, error: { code: 'TOKEN_EXPIRED' } });
    const aud = await checkerFor('this-service').check(hmacJwt(goodHeader, { ...goodPayload, aud: 'x' }));
    expect(aud).toMatchObject({ ok: false, error: { code: 'TOKEN_AUDIENCE_MISMATCH' } });
    const bad = await checkerFor().check(`${gh}.${gp}.${Buffer.alloc(32).toString('base64url')}`);
    expect(bad).toMatchObject({ ok: false, error: { code: 'TOKEN_INVALID' } });
  });
});
