import { describe, expect, it } from 'vitest';
import { readSection } from '../../config/index.ts';
import { trustConfig } from './config.ts';

const load = (env: Record<string, string>) => readSection(trustConfig, env);

describe('trust configuration', () => {
  it('leaves gating off by default and names a bad trust variable', () => {
    expect(load({}).trust).toEqual({ gating: false, gateThreshold: 40, maxDepth: 16, maxFanOut: 32, stallMs: 300_000 });
    expect(load({ SUITE_TRUST_GATING: 'true', SUITE_TRUST_GATE_THRESHOLD: '60' }).trust).toMatchObject({ gating: true, gateThreshold: 60 });
    expect(() => load({ SUITE_TRUST_GATE_THRESHOLD: '101' })).toThrow(/SUITE_TRUST_GATE_THRESHOLD/);
    expect(() => load({ SUITE_TRUST_GATING: 'on' })).toThrow(/SUITE_TRUST_GATING/);
    expect(() => load({ SUITE_TRUST_STALL_MS: '10' })).toThrow(/SUITE_TRUST_STALL_MS/);
    expect(() => load({ SUITE_TRUST_MAX_FANOUT: '0' })).toThrow(/SUITE_TRUST_MAX_FANOUT/);
  });
});
