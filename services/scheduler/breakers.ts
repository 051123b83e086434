import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { OutboundRefusedError } from '../../actors/outbound/index.ts';

export interface BreakerSettings {
  /** Consecutive failed calls to a host that open its breaker. */
  readonly failures: number;
  /** How long an open breaker refuses calls before one probe (half-open) may pass. Milliseconds. */
  readonly halfOpenAfterMs: number;
}

export const DEFAULT_BREAKER: BreakerSettings = Object.freeze({ failures: 5, halfOpenAfterMs: 30_000 });

/** Hosts remembered; the least recently used breaker is dropped past this (its host starts closed). */
const MAX_HOSTS = 10_000;

const STATE_NAMES: Record<CircuitState, string> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

/**
 * One circuit breaker per target host (cockatiel), in this replica: a host that keeps failing is
 * opened, probed by one call once `halfOpenAfterMs` passed (half-open), and closed again when the
 * probe succeeds. A refusal by the SSRF guard says nothing about the host's health and is not counted.
 */
export class HostBreakers {
  readonly #settings: BreakerSettings;
  readonly #byHost = new Map<string, CircuitBreakerPolicy>();

  constructor(settings: BreakerSettings = DEFAULT_BREAKER) {
    this.#settings = settings;
  }

  of(host: string): CircuitBreakerPolicy {
    let policy = this.#byHost.get(host);
    if (policy !== undefined) {
      this.#byHost.delete(host);
      this.#byHost.set(host, policy);
      return policy;
    }
    policy = circuitBreaker(
      handleWhen((err) => !(err instanceof OutboundRefusedError)),
      {
        halfOpenAfter: this.#settings.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(this.#settings.failures),
      },
    );
    this.#byHost.set(host, policy);
    if (this.#byHost.size > MAX_HOSTS) this.#byHost.delete(this.#byHost.keys().next().value as string);
    return policy;
  }

  states(): { host: string; state: string }[] {
    return [...this.#byHost].map(([host, policy]) => ({ host, state: STATE_NAMES[policy.state] }));
  }
}
