import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, outboundPolicy } from '../../actors/outbound/index.ts';
import { parseTrustedIssuers, verifySubjectToken, type TrustedIssuers } from '../../core/federation/index.ts';
import { createFederation } from './federation.ts';

// A local issuer serving its JWKS over HTTP on loopback (allowed by the embedded default outbound
// policy), with real keys; the number of fetches is counted to see the cache and the refetch on rotation.
type Pair = Awaited<ReturnType<typeof generateKeyPair>>;
let server: Server;
let served: JWK[] = [];
let fetches = 0;
let issuer: string;
let first: Pair, rotated: Pair;
let trust: TrustedIssuers;

beforeAll(async () => {
  [first, rotated] = await Promise.all([generateKeyPair('ES256', { extractable: true }), generateKeyPair('ES256', { extractable: true })]);
  served = [{ ...(await exportJWK(first.publicKey)), kid: 'k1', alg: 'ES256' }];
  server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const parsed = parseTrustedIssuers(
    JSON.stringify({ issuers: [{ issuer, jwksUri: `${issuer}/jwks`, audience: 'suite', subjects: [{ match: 'ci:*', scope: ['tool:deploy:*'] }] }] }),
  );
  if (!parsed.ok) throw new Error(parsed.message);
  trust = parsed.config;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = (key: Pair, kid: string) =>
  new SignJWT({ sub: 'ci:deploy', aud: 'suite', iss: issuer })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key.privateKey);
const now = () => Math.floor(Date.now() / 1000);

describe("a trusted issuer's jwksUri", () => {
  it('is fetched through the outbound guard once, cached, and fetched again when a token names an unknown kid', async () => {
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });
    const federation = createFederation(trust, guard, { cooldownMs: 0 });
    try {
      fetches = 0;
      expect((await verifySubjectToken(await token(first, 'k1'), trust, federation.keysFor, now())).ok).toBe(true);
      expect((await verifySubjectToken(await token(first, 'k1'), trust, federation.keysFor, now())).ok).toBe(true);
      expect(fetches).toBe(1);
      served = [...served, { ...(await exportJWK(rotated.publicKey)), kid: 'k2', alg: 'ES256' }];
      const r = await verifySubjectToken(await token(rotated, 'k2'), trust, federation.keysFor, now());
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(fetches).toBe(2);
    } finally {
      await federation.close();
    }
  });

  it('is refused when the outbound policy forbids the address (production allows no loopback), and the token with it', async () => {
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: true, production: true }) });
    const federation = createFederation(trust, guard);
    try {
      fetches = 0;
      const r = await verifySubjectToken(await token(first, 'k1'), trust, federation.keysFor, now());
      expect(r).toEqual({ ok: false, reason: "subject_token refused: the issuer's keys may not be fetched (outbound policy)" });
      expect(fetches).toBe(0);
    } finally {
      await federation.close();
    }
  });
});
