import type { Subscription } from '../../bus/index.ts';

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

  /** Run `work` every `ms` until the actor stops; the timer never keeps the process alive. */
  protected every(ms: number, work: () => void): void {
    const timer = setInterval(work, ms);
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
