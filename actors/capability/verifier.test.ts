import { describe, expect, it } from 'vitest';
import { createHmacKeyRing } from '../../core/capability/index.ts';
import { mintToken } from './jwt.ts';
import { TokenChecker } from './verifier.ts';

const A = 'secret-a-0123456789-abcdefghijklmnopqrstuv';
const B = 'secret-b-0123456789-abcdefghijklmnopqrstuv';

describe('token checker', () => {
  it('validates tokens signed by any configured secret while only the newest signs', async () => {
    const old = await createHmacKeyRing([A]);
    const rotated = await createHmacKeyRing([B, A]);
    const now = 1_800_000_000;
    const before = await mintToken(old, { sub: 's', scope: ['a:b'], lifetimeSeconds: 60, now });
    const after = await mintToken(rotated, { sub: 's', scope: ['a:b'], lifetimeSeconds: 60, now });
    expect(after.kid).toBe(rotated.signing.kid);
    expect(after.kid).not.toBe(before.kid);
    const checker = new TokenChecker({ ring: rotated, revocations: { isRevoked: () => false, trusted: () => true }, clock: () => now * 1000 });
    expect((await checker.check(before.token)).ok).toBe(true);
    expect((await checker.check(after.token)).ok).toBe(true);
    const onlyNew = new TokenChecker({
      ring: await createHmacKeyRing([B]),
      revocations: { isRevoked: () => false, trusted: () => true },
      clock: () => now * 1000,
    });
    expect(await onlyNew.check(before.token)).toMatchObject({ ok: false, error: { code: 'TOKEN_INVALID' } });
  });

  it('refuses a cached token once it expires or is revoked', async () => {
    const ring = await createHmacKeyRing([A]);
    let now = 1_800_000_000;
    const revoked = new Set<string>();
    const checker = new TokenChecker({ ring, revocations: { isRevoked: (j) => revoked.has(j), trusted: () => true }, clock: () => now * 1000 });
    const t = await mintToken(ring, { sub: 's', scope: ['a:b'], lifetimeSeconds: 30, now });
    expect((await checker.check(t.token)).ok).toBe(true);
    revoked.add(t.jti);
    expect(await checker.check(t.token)).toMatchObject({ ok: false, error: { code: 'TOKEN_REVOKED' } });
    revoked.clear();
    now += 30;
    expect(await checker.check(t.token)).toMatchObject({ ok: false, error: { code: 'TOKEN_EXPIRED' } });
  });

  it('refuses secrets shorter than 32 characters', async () => {
    await expect(createHmacKeyRing(['short'])).rejects.toThrow(/32/);
  });
});
