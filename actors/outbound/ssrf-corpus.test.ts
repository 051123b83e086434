import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, guardedRequest, outboundPolicy, OutboundRefusedError, type OutboundGuard, type Resolver } from './index.ts';

/**
 * The SSRF corpus (issue 14): URLs aimed at this machine, the metadata service and private networks in
 * every spelling we know of, run under the distributed default. A canary listener on loopback counts
 * the connections it receives: the guard holds only if that count stays 0.
 */

let canary: Server;
let canaryConnections = 0;
let P = 0;
let redirector: Server;
let R = 0;

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  canary = createServer((_req, res) => res.end('canary'));
  canary.on('connection', () => { canaryConnections += 1; });
  P = await listen(canary, '127.0.0.1');
  // A redirector the test's policy allows (127.0.0.2 only), whose redirects all aim at the canary.
  redirector = createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
    res.writeHead(302, { location: to.replaceAll('$P', String(P)) }).end();
  });
  R = await listen(redirector, '127.0.0.2');
});

afterAll(async () => {
  await new Promise((resolve) => canary.close(resolve));
  await new Promise((resolve) => redirector.close(resolve));
});

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
  `http://127.0.0.1:${p()}/`,
  `http://localhost:${p()}/`,
  `http://LOCALHOST:${p()}/`,
  `http://localhost.:${p()}/`,
  `http://2130706433:${p()}/`,
  `http://0x7f000001:${p()}/`,
  `http://0x7F.0.0.1:${p()}/`,
  `http://0177.0.0.1:${p()}/`,
  `http://017700000001:${p()}/`,
  `http://127.1:${p()}/`,
  `http://127.0.1:${p()}/`,
  `http://127.000.000.001:${p()}/`,
  `http://１２７.０.０.１:${p()}/`,
  `http://127.0.0.2:${p()}/`,
  `http://127.255.255.254:${p()}/`,
  `http://[::1]:${p()}/`,
  `http://[0:0:0:0:0:0:0:1]:${p()}/`,
  `http://[::ffff:127.0.0.1]:${p()}/`,
  `http://[::ffff:7f00:1]:${p()}/`,
  `http://[0:0:0:0:0:ffff:127.0.0.1]:${p()}/`,
  `http://[64:ff9b::127.0.0.1]:${p()}/`,
  `http://[2002:7f00:1::]:${p()}/`,
  `http://[::127.0.0.1]:${p()}/`,
  `http://0.0.0.0:${p()}/`,
  `http://0:${p()}/`,
  `http://[::]:${p()}/`,
  `https://127.0.0.1:${p()}/`,
  `http://rebind.test:${p()}/`,
  `http://mixed.test:${p()}/`,
  `http://mapped.test:${p()}/`,
  `http://user:pass@127.0.0.1:${p()}/`,
  `http://user@localhost:${p()}/`,
  `http://example.com@127.0.0.1:${p()}/`,
  `ftp://127.0.0.1:${p()}/`,
  `gopher://127.0.0.1:${p()}/_GET%20/`,
  `ws://127.0.0.1:${p()}/`,
  `file:///etc/passwd`,
  `data:text/plain,canary`,
  `javascript:fetch('http://127.0.0.1:${p()}/')`,
  `http://[::1%25lo]:${p()}/`,
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://metadata.test/latest/meta-data/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://[ff02::1]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
];

// Each goes to the allowed redirector, which answers 302 to the canary in one spelling or another.
const viaRedirect = () => [
  'http://127.0.0.1:$P/', 'http://localhost:$P/', 'http://2130706433:$P/', 'http://[::1]:$P/', 'http://[::ffff:127.0.0.1]:$P/',
  'http://169.254.169.254/', 'file:///etc/passwd',
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
    expect(canaryConnections).toBe(0);
  });

  it('follows no redirect to a refused address, even from a host the policy allows', async () => {
    const before = canaryConnections;
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: ['127.0.0.2/32'], distributed: true, production: false }), resolve: resolver });
    try {
      for (const url of viaRedirect()) {
        const outcome = await attempt(guard, url);
        expect(outcome, url).not.toBe('reached');
      }
    } finally {
      await guard.close();
    }
    expect(canaryConnections - before).toBe(0);
  });

  it('reaches the canary under the embedded default, so the canary would have counted a leak', async () => {
    const before = canaryConnections;
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }), resolve: resolver });
    try {
      const res = await guardedRequest(guard, { url: `http://rebind.test:${P}/`, timeoutMs: 2000 });
      expect(res.body.toString()).toBe('canary');
      const redirected = await guardedRequest(guard, { url: `http://127.0.0.2:${R}/?to=${encodeURIComponent('http://localhost:$P/')}`, timeoutMs: 2000 });
      expect(redirected.body.toString()).toBe('canary');
    } finally {
      await guard.close();
    }
    expect(canaryConnections - before).toBeGreaterThanOrEqual(1);
  });
});
