import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOutboundGuard, outboundPolicy, type OutboundGuard } from '../../actors/outbound/index.ts';
import { startHttpTarget, type HttpTarget } from '../../testing/http-target.ts';
import { HostBreakers } from './breakers.ts';
import { runHttpAttempt } from './http-runner.ts';

const T0 = new Date('2026-03-07T10:00:00.000Z');
let target: HttpTarget;
let healthy = false;
let guard: OutboundGuard;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: healthy ? 200 : 503 }));
  guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });
});
afterAll(async () => {
  await guard.close();
  await target.close();
});
afterEach(() => vi.useRealTimers());

describe('circuit breaker per host', () => {
  it('opens after consecutive failures, refuses without calling, probes half-open after the wait, and closes on success', async () => {
    // Only the clock the breaker reads is fake: sockets and timers stay real.
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const breakers = new HostBreakers({ failures: 3, halfOpenAfterMs: 10_000 });
    const deps = { guard, breakers };
    const host = new URL(target.url).host;
    healthy = false;
    for (let i = 0; i < 3; i++) expect((await runHttpAttempt({ url: `${target.url}/x` }, 1000, deps)).outcome).toBe('failure');
    expect(breakers.states()).toEqual([{ host, state: 'open' }]);

    const calls = target.hits.length;
    const refused = await runHttpAttempt({ url: `${target.url}/x` }, 1000, deps);
    expect(refused).toMatchObject({ outcome: 'circuit-open', retryable: true });
    expect(target.hits.length).toBe(calls);

    vi.setSystemTime(T0.getTime() + 9_999);
    expect((await runHttpAttempt({ url: `${target.url}/x` }, 1000, deps)).outcome).toBe('circuit-open');

    vi.setSystemTime(T0.getTime() + 10_001);
    healthy = true;
    expect((await runHttpAttempt({ url: `${target.url}/x` }, 1000, deps)).outcome).toBe('success');
    expect(breakers.states()).toEqual([{ host, state: 'closed' }]);
    expect(target.hits.length).toBe(calls + 1);
  });

  it('does not count a refusal by the SSRF guard against the host', async () => {
    const strict = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: true, production: false }) });
    const breakers = new HostBreakers({ failures: 1, halfOpenAfterMs: 10_000 });
    try {
      // A name, so the refusal comes from the connector, inside the breaker, not from the URL check.
      const url = target.url.replace('127.0.0.1', 'localhost');
      for (let i = 0; i < 3; i++) expect((await runHttpAttempt({ url: `${url}/x` }, 1000, { guard: strict, breakers })).outcome).toBe('refused');
      expect(breakers.states()).toEqual([{ host: new URL(url).host, state: 'closed' }]);
    } finally {
      await strict.close();
    }
  });
});
