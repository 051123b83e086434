import { describe, expect, it } from 'vitest';
import { readSection } from '../../config/index.ts';
import { schedulerConfig } from './config.ts';

const load = (env: Record<string, string>) => readSection(schedulerConfig, env);

describe("the scheduler's configuration", () => {
  it('runs 16 workers over a queue of 10,000 (1,000 a tenant) unless told, with script tasks off', () => {
    expect(load({})).toEqual({
      schedulerScriptRoot: undefined,
      scheduler: { workers: 16, queueMax: 10_000, queueTenantMax: 1_000, leaseMarginMs: 30_000, pollMs: 200 },
    });
    expect(load({ SCHEDULER_SCRIPT_ROOT: ' /srv/scripts ', SCHEDULER_WORKERS: '128' })).toMatchObject({
      schedulerScriptRoot: '/srv/scripts',
      scheduler: { workers: 128 },
    });
  });

  it('names the variable out of its bounds', () => {
    expect(() => load({ SCHEDULER_WORKERS: '0' })).toThrow(/SCHEDULER_WORKERS: must be between 1 and 1024, got 0/);
    expect(() => load({ SCHEDULER_POLL_MS: '1' })).toThrow(/SCHEDULER_POLL_MS/);
    expect(() => load({ SCHEDULER_QUEUE_MAX: 'lots' })).toThrow(/SCHEDULER_QUEUE_MAX: must be a whole number/);
  });
});
