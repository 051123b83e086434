import { describe, expect, it } from 'vitest';
import { readSection } from '../../config/index.ts';
import { spineConfig } from './config.ts';

const load = (env: Record<string, string>) => readSection(spineConfig, env);

describe("the spine's configuration", () => {
  it('reads the chain lease and its renewal, renewing every sixth of the lease unless told, and refuses a renewal over half the lease', () => {
    expect(load({})).toMatchObject({ chainLeaseMs: 1500, chainLeaseRenewMs: 250 });
    expect(load({ SUITE_NATS_URL: 'nats://127.0.0.1:4222' })).toMatchObject({ chainLeaseMs: 1500, chainLeaseRenewMs: 250 });
    expect(load({ SUITE_CHAIN_LEASE_MS: '3000' })).toMatchObject({ chainLeaseMs: 3000, chainLeaseRenewMs: 500 });
    expect(load({ SUITE_CHAIN_LEASE_MS: '1000', SUITE_CHAIN_LEASE_RENEW_MS: '100' })).toMatchObject({ chainLeaseMs: 1000, chainLeaseRenewMs: 100 });
    expect(() => load({ SUITE_CHAIN_LEASE_MS: '1000', SUITE_CHAIN_LEASE_RENEW_MS: '600' })).toThrow(/SUITE_CHAIN_LEASE_RENEW_MS/);
    expect(() => load({ SUITE_CHAIN_LEASE_RENEW_MS: '10' })).toThrow(/SUITE_CHAIN_LEASE_RENEW_MS/);
  });

  it('prunes every five minutes a thousand entries a transaction unless told, and names a bound it crosses', () => {
    expect(load({}).retention).toEqual({ everyMs: 300_000, batch: 1000 });
    expect(load({ SUITE_RETENTION_EVERY_MS: '60000', SUITE_RETENTION_BATCH: '50' }).retention).toEqual({ everyMs: 60_000, batch: 50 });
    expect(() => load({ SUITE_RETENTION_EVERY_MS: '999' })).toThrow(/SUITE_RETENTION_EVERY_MS: must be between 1000 and 86400000, got 999/);
    expect(() => load({ SUITE_RETENTION_BATCH: 'all' })).toThrow(/SUITE_RETENTION_BATCH: must be a whole number/);
  });
});
