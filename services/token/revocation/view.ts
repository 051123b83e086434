import type { Bus, Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import type { RevocationLookup } from '../../../actors/capability/index.ts';
import { backgroundSpan, detached, type PromiseMetrics } from '../../../observability/index.ts';

export interface RevocationViewOptions {
  bus: Bus;
  /** The declared staleness bound: without a heartbeat for this long, the view is not trusted. */
  stalenessMs: number;
  clock?: () => number;
  logger?: { warn(o: object, m?: string): void };
  /** Observes each revocation as it is applied (for the propagation benchmark). */
  onApplied?: (jti: string) => void;
  /** Its size and age as gauges (observability/promise-metrics.ts). */
  metrics?: PromiseMetrics;
}

/**
 * An edge's view of revocations, kept current from the bus. It is trusted only while it is synced,
 * the bus is connected, a heartbeat arrived within the staleness bound, and no version was missed;
 * otherwise the capability check fails closed (503 REVOCATION_UNAVAILABLE).
 */
export class RevocationView implements RevocationLookup {
  readonly #o: RevocationViewOptions;
  readonly #clock: () => number;
  readonly #revoked = new Map<string, number>();
  #version = -1;
  #lastHeartbeat = Number.NEGATIVE_INFINITY;
  #behind = true;
  #seenDuringSync: Set<number> | undefined;
  #syncing: Promise<void> | undefined;
  #subs: Subscription[] = [];
  #sweep: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;
  #lastApplied = 0;
  #unwatch: (() => void) | undefined;

  constructor(o: RevocationViewOptions) {
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  async start(): Promise<void> {
    const { bus } = this.#o;
    this.#unwatch = this.#o.metrics?.watchRevocations(this);
    this.#subs.push(
      bus.subscribe(subjects.revocationRevoked, ({ data }) => this.#apply(data.version, data.jti, data.exp)),
      bus.subscribe(subjects.revocationHeartbeat, ({ data }) => {
        this.#lastHeartbeat = this.#clock();
        if (data.version > this.#version) this.#resync();
      }),
    );
    this.#sweep = setInterval(() => this.#dropExpired(), 30_000);
    this.#sweep.unref();
    this.#resync();
    await this.#syncing;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwatch?.();
    clearInterval(this.#sweep);
    clearTimeout(this.#retry);
    const subs = this.#subs;
    this.#subs = [];
    await Promise.all(subs.map((s) => s.unsubscribe()));
  }

  isRevoked(jti: string): boolean {
    return this.#revoked.has(jti);
  }

  trusted(): boolean {
    return !this.#behind && this.#o.bus.isConnected() && this.#clock() - this.#lastHeartbeat <= this.#o.stalenessMs;
  }

  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#revoked.size;
  }

  /** When a heartbeat, a snapshot or a broadcast last confirmed the view (clock ms); 0 before any. */
  get lastUpdateMs(): number {
    return Math.max(0, this.#lastHeartbeat, this.#lastApplied);
  }

  #apply(version: number, jti: string, exp: number): void {
    this.#lastApplied = this.#clock();
    this.#revoked.set(jti, exp);
    this.#o.onApplied?.(jti);
    if (this.#seenDuringSync) {
      this.#seenDuringSync.add(version);
    } else if (version === this.#version + 1) {
      this.#version = version;
    } else if (version > this.#version + 1) {
      this.#resync(); // a broadcast was missed
    }
  }

  #resync(): void {
    if (this.#syncing || this.#stopped) return;
    // A retry scheduled by an earlier failed snapshot is superseded by this attempt.
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#behind = true;
    this.#seenDuringSync = new Set();
    // A sync is background work of its own, whatever event or request noticed the view was behind.
    this.#syncing = detached(() =>
      backgroundSpan('revocation.sync', () => this.#loadSnapshot()).finally(() => {
        this.#syncing = undefined;
      }),
    );
  }

  async #loadSnapshot(): Promise<void> {
    const result = await this.#o.bus.request(subjects.revocationSnapshot, {}, { timeoutMs: 5000 });
    const seen = this.#seenDuringSync ?? new Set<number>();
    this.#seenDuringSync = undefined;
    if (!result.ok) {
      this.#o.logger?.warn({ code: result.error.code, transport: result.transport }, 'revocation snapshot failed; retrying');
      if (!this.#stopped) {
        this.#retry = setTimeout(() => this.#resync(), 500);
        this.#retry.unref();
      }
      return;
    }
    for (const e of result.value.entries) this.#revoked.set(e.jti, e.exp);
    let version = Math.max(this.#version, result.value.version);
    while (seen.has(version + 1)) version++;
    this.#version = version;
    // The snapshot answer itself shows the store and the bus are alive.
    this.#lastHeartbeat = this.#clock();
    this.#behind = false;
  }

  #dropExpired(): void {
    const now = Math.floor(this.#clock() / 1000);
    for (const [jti, exp] of this.#revoked) if (exp <= now) this.#revoked.delete(jti);
  }
}
