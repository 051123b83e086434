import type { Bus, Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import {
  findIssuedToken,
  insertRevocation,
  insertRevocations,
  pruneIssuedTokens,
  pruneRevocations,
  revocationSnapshot,
  revocationVersion,
} from '../../../storage/index.ts';
import { BusActor } from '../../../actors/base/index.ts';

export interface RevocationActorOptions {
  bus: Bus;
  storage: Storage;
  /** How often the heartbeat goes out; edges distrust their view after `stalenessMs` without one. */
  heartbeatMs: number;
  pruneEveryMs?: number;
  /** Issued-token rows are kept this long after expiry (for audit look-ups), then pruned. */
  keepIssuedSeconds?: number;
  clock?: () => number;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}

/**
 * Revocations: durable in storage first, then broadcast. Any number of replicas may run (queue
 * group); the version counter lives in the database, so broadcasts from different replicas agree.
 */
export class RevocationActor extends BusActor {
  readonly #o: RevocationActorOptions;
  readonly #clock: () => number;

  constructor(o: RevocationActorOptions) {
    super();
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  protected subscriptions(): Subscription[] {
    const { bus, storage } = this.#o;
    const subs = [
      bus.serve(
        subjects.revocationRevoke,
        async ({ data }) => {
          const now = Math.floor(this.#clock() / 1000);
          let exp = data.exp;
          if (exp === undefined) exp = (await findIssuedToken(storage.pool, data.jti))?.exp;
          if (exp === undefined || exp <= now) {
            // Unknown to us, or expired already: there is nothing left to revoke.
            return { ok: true, value: { revoked: false, jti: data.jti, version: await revocationVersion(storage.pool) } };
          }
          const { version, created } = await insertRevocation(storage.pool, { jti: data.jti, exp, by: data.by });
          if (created) bus.publish(subjects.revocationRevoked, { version, jti: data.jti, exp });
          return { ok: true, value: { revoked: true, jti: data.jti, version } };
        },
        { queue: 'revocation' },
      ),
      bus.serve(
        subjects.revocationRevokeMany,
        async ({ data }) => {
          const now = Math.floor(this.#clock() / 1000);
          // Expired tokens are refused without a revocation; only the live ones are recorded.
          const live = data.entries.filter((e) => e.exp > now);
          if (live.length === 0) return { ok: true, value: { revoked: 0, created: 0, version: await revocationVersion(storage.pool) } };
          const { version, created } = await insertRevocations(storage.pool, live, data.by);
          // In version order, so that every edge applies them without seeing a gap.
          for (const c of created) bus.publish(subjects.revocationRevoked, { version: c.version, jti: c.jti, exp: c.exp });
          return { ok: true, value: { revoked: new Set(live.map((e) => e.jti)).size, created: created.length, version } };
        },
        { queue: 'revocation' },
      ),
      bus.serve(
        subjects.revocationSnapshot,
        async () => {
          const now = Math.floor(this.#clock() / 1000);
          return { ok: true, value: await revocationSnapshot(storage.pool, now) };
        },
        { queue: 'revocation' },
      ),
    ];
    void this.#beat();
    this.every(this.#o.heartbeatMs, () => void this.#beat(), 'revocation.heartbeat');
    this.every(this.#o.pruneEveryMs ?? 60_000, () => void this.#pruneOnce(), 'revocation.prune');
    return subs;
  }

  async #beat(): Promise<void> {
    try {
      const version = await revocationVersion(this.#o.storage.pool);
      // Checked after the await: a stopped actor must not publish on a draining bus.
      if (this.state === 'running') this.#o.bus.publish(subjects.revocationHeartbeat, { version, at: this.#clock() });
    } catch (err) {
      // No heartbeat while the store is unreachable: edges then fail closed (spec, rule 10).
      this.#o.logger?.warn({ err }, 'revocation heartbeat skipped: store unreachable');
    }
  }

  async #pruneOnce(): Promise<void> {
    const now = Math.floor(this.#clock() / 1000);
    try {
      const revocations = await pruneRevocations(this.#o.storage.pool, now);
      const tokens = await pruneIssuedTokens(this.#o.storage.pool, now, this.#o.keepIssuedSeconds ?? 30 * 86400);
      if (revocations + tokens > 0) this.#o.logger?.info({ revocations, tokens }, 'pruned expired revocations and tokens');
    } catch (err) {
      this.#o.logger?.warn({ err }, 'revocation prune failed');
    }
  }
}
