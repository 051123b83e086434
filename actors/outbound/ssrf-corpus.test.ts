import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, guardedRequest, outboundPolicy, OutboundRefusedError, type OutboundGuard, type Resolver } from './index.ts';
import { ssrfCorpus, startCanary, type Canary } from '../../testing/ssrf.ts';

/**
 * The SSRF corpus (issue 14): URLs aimed at this machine, the metadata service and private networks in
 * every spelling we know of, run under the distributed default. A canary listener on loopback counts
 * the connections it receives: the guard holds only if that count stays 0.
 */

let canary: Canary;
let P = 0;
let R = 0;

beforeAll(async () => {
  canary = await startCanary();
  P = canary.port;
  R = canary.redirectorPort;
});

afterAll(() => canary.close());

/** Names only this test knows: one resolves to loopback, one to a public and a private address. */
const resolver: Resolver = async (hostname) => {
  const names: Record<string, string[]> = {
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:127.0.0.1'],
  };
  const found = names[hostname.toLowerCase()];
  if (found !== undefined) return found.map((address) => ({ address }));
  const { lookup } = await import('node:dns/promises');
  return lookup(hostname, { all: true });
};

const direct = (p: () => number) => [
  ...ssrfCorpus(p()),
  // Names only this test's resolver knows, and a scheme no fetch should follow.
  `http://rebind.test:${p()}/`,
  `http://mixed.test:${p()}/`,
  `http://mapped.test:${p()}/`,
  `javascript:fetch('http://127.0.0.1:${p()}/')`,
  'http://metadata.test/latest/meta-data/',
];

// Each goes to the allowed redirector, which answers 302 to the canary in one spelling or another.
const viaRedirect = () =>
  [
    'http://127.0.0.1:$P/',
    'http://localhost:$P/',
    'http://2130706433:$P/',
    'http://[::1]:$P/',
    'http://[::ffff:127.0.0.1]:$P/',
    'http://169.254.169.254/',
    'file:///etc/passwd',
  ].map((to) => `http://127.0.0.2:${R}/?to=${encodeURIComponent(to)}`);

async function attempt(guard: OutboundGuard, url: string): Promise<unknown> {
  try {
    await guardedRequest(guard, { url, timeoutMs: 2000 });
    return 'reached';
  } catch (err) {
    return err;
  }
}

describe('SSRF corpus under the distributed default', () => {
  it(`refuses every URL of the corpus and the loopback canary receives 0 connections`, async () => {
    const urls = direct(() => P);
    expect(urls.length).toBeGreaterThanOrEqual(40);
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: true, production: false }), resolve: resolver });
    try {
      for (const url of urls) {
        const outcome = await attempt(guard, url);
        expect(outcome, url).toBeInstanceOf(OutboundRefusedError);
      }
    } finally {
      await guard.close();
    }
    expect(canary.connections()).toBe(0);
  });

  it('follows no redirect to a refused address, even from a host the policy allows', async () => {
    const before = canary.connections();
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: ['127.0.0.2/32'], distributed: true, production: false }), resolve: resolver });
    try {
      for (const url of viaRedirect()) {
        const outcome = await attempt(guard, url);
        expect(outcome, url).not.toBe('reached');
      }
    } finally {
      await guard.close();
    }
    expect(canary.connections() - before).toBe(0);
  });

  it('reaches the canary under the embedded default, so the canary would have counted a leak', async () => {
    const before = canary.connections();
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }), resolve: resolver });
    try {
      const res = await guardedRequest(guard, { url: `http://rebind.test:${P}/`, timeoutMs: 2000 });
      expect(res.body.toString()).toBe('canary');
      const redirected = await guardedRequest(guard, { url: `http://127.0.0.2:${R}/?to=${encodeURIComponent('http://localhost:$P/')}`, timeoutMs: 2000 });
      expect(redirected.body.toString()).toBe('canary');
    } finally {
      await guard.close();
    }
    expect(canary.connections() - before).toBeGreaterThanOrEqual(1);
  });
});
