import type { Subscription } from '../../bus/index.ts';
import { backgroundSpan, detached } from '../../observability/index.ts';

export type ActorState = 'idle' | 'running' | 'stopped';

/**
 * The lifecycle every bus actor shares: `start()` subscribes to what it serves, `stop()` unsubscribes
 * (letting handlers under way finish, as the bus drains them), clears its timers, then runs the
 * actor's own `stopped()` cleanup. Explicit states: a stopped actor never starts again, and stopping
 * twice is harmless.
 */
export abstract class BusActor {
  #state: ActorState = 'idle';
  #subs: Subscription[] = [];
  #timers: NodeJS.Timeout[] = [];

  /** What this actor serves and listens to; called once, by start(). */
  protected abstract subscriptions(): Subscription[];

  /** Cleanup of the actor's own, after its subscriptions and timers are gone. */
  protected async stopped(): Promise<void> {}

  /**
   * Run `work` every `ms` until the actor stops; the timer never keeps the process alive. Each turn
   * is background work: a root span of its own named `name` (sampled off by default), never part of
   * whatever trace was active when the actor started.
   */
  protected every(ms: number, work: () => void, name = `${this.constructor.name} timer`): void {
    const turn = () => void backgroundSpan(name, async () => work());
    const timer = detached(() => setInterval(turn, ms));
    timer.unref();
    this.#timers.push(timer);
  }

  get state(): ActorState {
    return this.#state;
  }

  start(): void {
    if (this.#state !== 'idle') throw new Error(`${this.constructor.name} cannot start: it is ${this.#state}`);
    this.#state = 'running';
    this.#subs = this.subscriptions();
  }

  async stop(): Promise<void> {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    const subs = this.#subs;
    this.#subs = [];
    await Promise.all(subs.map((s) => s.unsubscribe()));
    await this.stopped();
  }
}
