import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The SSRF corpus shared by every test of an outbound path (the guard itself, the scheduler, the
 * connectors): URLs aimed at this machine, the metadata service and private networks in every
 * spelling we know of. `p` is the canary's port.
 */
export const ssrfCorpus = (p: number): string[] => [
  `http://127.0.0.1:${p}/`,
  `http://localhost:${p}/`,
  `http://LOCALHOST:${p}/`,
  `http://localhost.:${p}/`,
  `http://2130706433:${p}/`,
  `http://0x7f000001:${p}/`,
  `http://0x7F.0.0.1:${p}/`,
  `http://0177.0.0.1:${p}/`,
  `http://017700000001:${p}/`,
  `http://127.1:${p}/`,
  `http://127.0.1:${p}/`,
  `http://127.000.000.001:${p}/`,
  `http://１２７.０.０.１:${p}/`,
  `http://127.0.0.2:${p}/`,
  `http://127.255.255.254:${p}/`,
  `http://[::1]:${p}/`,
  `http://[0:0:0:0:0:0:0:1]:${p}/`,
  `http://[::ffff:127.0.0.1]:${p}/`,
  `http://[::ffff:7f00:1]:${p}/`,
  `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
  `http://[64:ff9b::127.0.0.1]:${p}/`,
  `http://[2002:7f00:1::]:${p}/`,
  `http://[::127.0.0.1]:${p}/`,
  `http://0.0.0.0:${p}/`,
  `http://0:${p}/`,
  `http://[::]:${p}/`,
  `https://127.0.0.1:${p}/`,
  `http://user:pass@127.0.0.1:${p}/`,
  `http://user@localhost:${p}/`,
  `http://example.com@127.0.0.1:${p}/`,
  `ftp://127.0.0.1:${p}/`,
  `gopher://127.0.0.1:${p}/_GET%20/`,
  `ws://127.0.0.1:${p}/`,
  'file:///etc/passwd',
  'data:text/plain,canary',
  `http://[::1%25lo]:${p}/`,
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://[ff02::1]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
];

export interface Canary {
  /** The canary's port on 127.0.0.1: any connection to it is a guard that let one through. */
  readonly port: number;
  /** A redirector on 127.0.0.2 answering 302 to `?to=` (with `$P` standing for the canary's port). */
  readonly redirectorPort: number;
  connections(): number;
  close(): Promise<void>;
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const canary = createServer((_req, res) => res.end('canary'));
  canary.on('connection', () => {
    connections += 1;
  });
  const port = await listen(canary, '127.0.0.1');
  const redirector = createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
    res.writeHead(302, { location: to.replaceAll('$P', String(port)) }).end();
  });
  const redirectorPort = await listen(redirector, '127.0.0.2');
  return {
    port,
    redirectorPort,
    connections: () => connections,
    close: async () => {
      await new Promise((resolve) => canary.close(resolve));
      await new Promise((resolve) => redirector.close(resolve));
    },
  };
}
