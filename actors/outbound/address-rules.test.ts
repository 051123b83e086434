import { describe, expect, it } from 'vitest';
import { nonPublicReason } from './address-rules.ts';
import { outboundPolicy } from './policy.ts';

describe('address rules', () => {
  it('names the class of each non-public address', () => {
    expect(nonPublicReason('127.0.0.1')).toBe('loopback');
    expect(nonPublicReason('::1')).toBe('loopback');
    expect(nonPublicReason('10.1.2.3')).toBe('private');
    expect(nonPublicReason('172.31.255.255')).toBe('private');
    expect(nonPublicReason('192.168.0.1')).toBe('private');
    expect(nonPublicReason('100.64.0.1')).toBe('cgnat');
    expect(nonPublicReason('169.254.169.254')).toBe('metadata');
    expect(nonPublicReason('fd00:ec2::254')).toBe('metadata');
    expect(nonPublicReason('169.254.1.1')).toBe('link-local');
    expect(nonPublicReason('fe80::1')).toBe('link-local');
    expect(nonPublicReason('224.0.0.1')).toBe('multicast');
    expect(nonPublicReason('ff02::1')).toBe('multicast');
    expect(nonPublicReason('0.0.0.0')).toBe('unspecified');
    expect(nonPublicReason('::')).toBe('unspecified');
    expect(nonPublicReason('fc00::1')).toBe('private');
  });

  it('judges IPv4-mapped, NAT64 and 6to4 forms as non-public whatever they carry', () => {
    expect(nonPublicReason('::ffff:7f00:1')).toBe('loopback');
    expect(nonPublicReason('::ffff:808:808')).toBe('ipv4-mapped');
    expect(nonPublicReason('64:ff9b::7f00:1')).toBe('nat64');
    expect(nonPublicReason('2002:7f00:1::')).toBe('6to4');
  });

  it('lets public unicast addresses through', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111']) {
      expect(nonPublicReason(address), address).toBeUndefined();
    }
  });
});

describe('outbound policy', () => {
  it('allows loopback in the embedded mode and nothing private in the distributed mode or production', () => {
    expect(outboundPolicy({ allowList: undefined, distributed: false, production: false })).toEqual({
      source: 'embedded-default',
      allow: ['127.0.0.0/8', '::1/128'],
    });
    expect(outboundPolicy({ allowList: undefined, distributed: true, production: false })).toEqual({ source: 'distributed-default', allow: [] });
    expect(outboundPolicy({ allowList: undefined, distributed: false, production: true })).toEqual({ source: 'production-default', allow: [] });
  });

  it('takes the configured allow-list over any default, an empty one included', () => {
    expect(outboundPolicy({ allowList: [], distributed: false, production: false })).toEqual({ source: 'SUITE_OUTBOUND_ALLOW', allow: [] });
    expect(outboundPolicy({ allowList: ['10.0.0.0/8'], distributed: true, production: true }).allow).toEqual(['10.0.0.0/8']);
  });
});
