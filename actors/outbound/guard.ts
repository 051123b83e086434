import { lookup } from 'node:dns/promises';
import { Agent, buildConnector, interceptors, type Dispatcher } from 'undici';
import { allowListOf, familyOf, nonPublicReason } from './address-rules.ts';
import type { OutboundPolicy } from './policy.ts';

/** A refused outbound call: the URL or the address it resolves to is not allowed. */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
  /** `scheme`, `credentials`, `invalid-url`, `unresolved`, or the address class (`loopback` ...). */
  readonly reason: string;
  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundRefusedError';
    this.reason = reason;
  }
}

/** Name resolution, injectable so tests can make a name resolve to loopback without a DNS server. */
export type Resolver = (hostname: string) => Promise<readonly { address: string }[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, order: 'verbatim' });

export interface OutboundGuardOptions {
  readonly policy: OutboundPolicy;
  readonly resolve?: Resolver;
  /** Redirects followed, each to an address that passes the same check. Default 5. */
  readonly maxRedirections?: number;
  readonly connectTimeoutMs?: number;
}

export interface OutboundGuard {
  readonly policy: OutboundPolicy;
  /** Every outbound request goes through this dispatcher: its connect resolves, checks and pins. */
  readonly dispatcher: Dispatcher;
  /** The URL rules that need no resolution: http(s) only, no credentials, literal addresses checked. */
  checkUrl(url: string): URL;
  close(): Promise<void>;
}

/**
 * The SSRF guard. The check sits in the connector, not before the request, so that it sees the
 * address the socket really connects to: the name is resolved once, every address it resolves to is
 * checked, and the socket is opened to that checked address (pinned), so a second resolution (DNS
 * rebinding) cannot swap in another. Redirects are dispatched through the same agent and so connect
 * through the same check.
 */
export function createOutboundGuard(options: OutboundGuardOptions): OutboundGuard {
  const { policy } = options;
  const allowed = allowListOf(policy.allow);
  const resolve = options.resolve ?? systemResolver;

  const checkAddress = (address: string, shown: string): void => {
    const reason = nonPublicReason(address);
    if (reason === undefined) return;
    const family = familyOf(address);
    if (family !== undefined && allowed.check(address, family)) return;
    // The address itself is not shown: a refusal must not turn the guard into an internal DNS oracle.
    throw new OutboundRefusedError(
      reason,
      `outbound call to ${shown} refused: it is a ${reason} address, which the outbound policy (${policy.source}) does not allow`,
    );
  };

  const resolveChecked = async (hostname: string): Promise<string> => {
    if (familyOf(hostname) !== undefined) {
      checkAddress(hostname, hostname);
      return hostname;
    }
    let addresses: readonly { address: string }[];
    try {
      addresses = await resolve(hostname);
    } catch (cause) {
      throw new OutboundRefusedError('unresolved', `outbound call to ${hostname} refused: the name does not resolve`, { cause });
    }
    if (addresses.length === 0) throw new OutboundRefusedError('unresolved', `outbound call to ${hostname} refused: the name does not resolve`);
    // Every address is checked, not only the first: which one a client picks is not ours to decide.
    for (const { address } of addresses) checkAddress(address, hostname);
    return addresses[0]!.address;
  };

  const connectTo = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  const connect: buildConnector.connector = (target, callback) => {
    resolveChecked(target.hostname).then(
      // `host` keeps the name for TLS (SNI and certificate check); `hostname` pins the socket's address.
      (address) => connectTo({ ...target, hostname: address }, callback),
      (err: Error) => callback(err, null),
    );
  };

  const agent = new Agent({ connect });
  const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: options.maxRedirections ?? 5 }));

  return {
    policy,
    dispatcher,
    checkUrl(raw) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new OutboundRefusedError('invalid-url', 'outbound call refused: not a valid URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new OutboundRefusedError('scheme', `outbound call refused: only http and https are allowed, not ${url.protocol.slice(0, 20)}`);
      }
      if (url.username !== '' || url.password !== '') {
        throw new OutboundRefusedError('credentials', 'outbound call refused: credentials in the URL are not allowed (send them as a header)');
      }
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      if (familyOf(hostname) !== undefined) checkAddress(hostname, url.hostname);
      return url;
    },
    close: () => agent.close(),
  };
}
