import { isIP } from 'node:net';
import type { ConfigReader } from './reader.ts';

export interface OutboundConfig {
  /**
   * `SUITE_OUTBOUND_ALLOW`: non-public addresses and CIDR ranges outbound calls may reach (`none`,
   * `loopback`, addresses, ranges). Undefined = the mode's default (actors/outbound/policy.ts).
   */
  readonly outboundAllow: readonly string[] | undefined;
}

export function outboundConfig({ str, fail }: ConfigReader): OutboundConfig {
  const raw = str('SUITE_OUTBOUND_ALLOW');
  if (raw === undefined) return { outboundAllow: undefined };
  const entries: string[] = [];
  // `none` (nothing), `loopback` (127.0.0.0/8 and ::1), IPv4/IPv6 addresses and CIDR ranges.
  for (const entry of raw.split(/[\s,]+/).filter((e) => e !== '')) {
    if (entry === 'none') continue;
    if (entry === 'loopback') {
      entries.push('127.0.0.0/8', '::1/128');
      continue;
    }
    const [network = '', bits, extra] = entry.split('/');
    const family = isIP(network);
    const maxBits = family === 4 ? 32 : 128;
    const badBits = bits !== undefined && (!/^[0-9]{1,3}$/.test(bits) || Number(bits) > maxBits);
    if (family === 0 || badBits || extra !== undefined) {
      throw fail('SUITE_OUTBOUND_ALLOW', `"${entry.slice(0, 60)}" is not an address or CIDR range (or none, loopback)`);
    }
    entries.push(entry);
  }
  return { outboundAllow: entries };
}
