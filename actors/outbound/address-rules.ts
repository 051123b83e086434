import { BlockList, isIP } from 'node:net';

/**
 * Address ranges an outbound call may not reach unless the allow-list names them: everything that is
 * not the public internet. Sources: RFC 6890 (special-purpose registries), RFC 6598 (CGNAT),
 * RFC 4291 (IPv6 loopback, mapped, link-local, multicast), RFC 6052 (NAT64), RFC 3056 (6to4),
 * RFC 4380 (Teredo), RFC 4193 (unique local, which holds AWS's fd00:ec2::254 metadata address).
 * Translation ranges (mapped, NAT64, 6to4, Teredo) are refused whole: they can carry any IPv4
 * address, loopback included, and no public service needs to be reached through them.
 */
const NON_PUBLIC: readonly (readonly [range: string, family: 'ipv4' | 'ipv6', why: string])[] = [
  ['0.0.0.0/8', 'ipv4', 'unspecified'],
  ['10.0.0.0/8', 'ipv4', 'private'],
  ['100.64.0.0/10', 'ipv4', 'cgnat'],
  ['127.0.0.0/8', 'ipv4', 'loopback'],
  ['169.254.0.0/16', 'ipv4', 'link-local'],
  ['172.16.0.0/12', 'ipv4', 'private'],
  ['192.0.0.0/24', 'ipv4', 'reserved'],
  ['192.0.2.0/24', 'ipv4', 'reserved'],
  ['192.88.99.0/24', 'ipv4', 'reserved'],
  ['192.168.0.0/16', 'ipv4', 'private'],
  ['198.18.0.0/15', 'ipv4', 'reserved'],
  ['198.51.100.0/24', 'ipv4', 'reserved'],
  ['203.0.113.0/24', 'ipv4', 'reserved'],
  ['224.0.0.0/4', 'ipv4', 'multicast'],
  ['240.0.0.0/4', 'ipv4', 'reserved'],
  ['::/128', 'ipv6', 'unspecified'],
  ['::1/128', 'ipv6', 'loopback'],
  ['::ffff:0:0/96', 'ipv6', 'ipv4-mapped'],
  ['::/96', 'ipv6', 'ipv4-compatible'],
  ['64:ff9b::/96', 'ipv6', 'nat64'],
  ['64:ff9b:1::/48', 'ipv6', 'nat64'],
  ['100::/64', 'ipv6', 'reserved'],
  ['2001::/32', 'ipv6', 'teredo'],
  ['2001:db8::/32', 'ipv6', 'reserved'],
  ['2002::/16', 'ipv6', '6to4'],
  ['fc00::/7', 'ipv6', 'private'],
  ['fe80::/10', 'ipv6', 'link-local'],
  ['fec0::/10', 'ipv6', 'site-local'],
  ['ff00::/8', 'ipv6', 'multicast'],
];

/** The cloud metadata endpoints, named apart so a refusal says what was aimed at. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

const rules = NON_PUBLIC.map(([range, family, why]) => {
  const [network, bits] = range.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(network, Number(bits), family);
  return { list, family, why };
});

export type AddressFamily = 'ipv4' | 'ipv6';

export function familyOf(address: string): AddressFamily | undefined {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/**
 * Why an address is not public (`loopback`, `private`, `metadata` ...), or undefined when it is a
 * public unicast address. Input is an address literal, never a name.
 */
export function nonPublicReason(address: string): string | undefined {
  const family = familyOf(address);
  if (family === undefined) return 'not-an-address';
  if (METADATA.has(address.toLowerCase())) return 'metadata';
  for (const rule of rules) {
    // BlockList matches IPv4 rules against IPv4-mapped IPv6 addresses too (Node docs, BlockList.check),
    // and IPv6 rules against IPv4 addresses as if mapped: an IPv4 address is judged by IPv4 rules only.
    if (family === 'ipv4' && rule.family === 'ipv6') continue;
    if (rule.list.check(address, family)) return rule.why;
  }
  return undefined;
}

/** A parsed allow-list: addresses and CIDR ranges (IPv4 and IPv6). */
export function allowListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [network, bits] = entry.split('/') as [string, string | undefined];
    const family = familyOf(network);
    if (family === undefined) throw new Error(`allow-list entry "${entry}" is not an address or CIDR range`);
    if (bits === undefined) list.addAddress(network, family);
    else list.addSubnet(network, Number(bits), family);
  }
  return list;
}
