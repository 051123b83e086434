import type { Logger } from 'pino';
import { subjects, type Bus, type Subscription } from '../../bus/index.ts';
import type { TrustSettings } from './config.ts';
import type { Storage } from '../../storage/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import type { TrustDeps } from './context.ts';
import * as events from './events.ts';
import * as disputes from './disputes.ts';
import * as contracts from './contracts.ts';
import * as interactions from './interactions.ts';
import { trustSubjects as s } from './subjects.ts';

export interface TrustArbiterOptions {
  bus: Bus;
  storage: Storage;
  settings: TrustSettings;
  logger: Logger;
  now?: () => number;
}

/**
 * The trust arbiter: every trust subject (queue `trust`, any number of replicas: each handler reads
 * and writes the database only, in transactions where a rule spans rows), and the `trace appended`
 * broadcast (same queue: one replica links each execution to the interactions that named it).
 */
/** How long appended executions gather before they are linked, and the most linked at once. */
const LINK_EVERY_MS = 100;
const LINK_BATCH_MAX = 500;

export class TrustArbiterActor extends BusActor {
  readonly #deps: TrustDeps;
  readonly #logger: Logger;
  /** Appended executions waiting to be linked: one statement per batch, not one per append. */
  #appended: Array<{ id: string; outcome: string }> = [];
  #linking: Promise<void> = Promise.resolve();

  constructor(o: TrustArbiterOptions) {
    super();
    this.#deps = { bus: o.bus, storage: o.storage, settings: o.settings, now: o.now ?? Date.now };
    this.#logger = o.logger;
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#deps;
    const d = this.#deps;
    const queue = { queue: 'trust' };
    const unexpected = (err: unknown) => this.#logger.error({ err }, 'trust handler failed');
    const on =
      <T, R>(work: (deps: TrustDeps, data: T) => Promise<R>) =>
      ({ data }: { data: T }) =>
        replyOf(() => work(d, data), unexpected);
    // A write, once it took effect, tells live views (the dashboard's socket) to read again.
    const write =
      <T, R>(subject: { subject: string }, work: (deps: TrustDeps, data: T) => Promise<R>) =>
      async ({ data }: { data: T }) => {
        const result = await replyOf(() => work(d, data), unexpected);
        if (result.ok) this.#changed(subject.subject, data, result.value);
        return result;
      };
    this.every(LINK_EVERY_MS, () => void this.#link(), 'trust.link');
    return [
      bus.serve(s.recordEvent, write(s.recordEvent, events.recordEvent), queue),
      bus.serve(s.eventsOf, on(events.listEvents), queue),
      bus.serve(s.appeal, write(s.appeal, events.appeal), queue),
      bus.serve(s.appealsOf, on(events.listAppeals), queue),
      bus.serve(s.decideAppeal, write(s.decideAppeal, events.decide), queue),
      bus.serve(s.evidence, on(events.evidence), queue),
      bus.serve(s.score, on(events.score), queue),
      bus.serve(s.scores, on(events.scores), queue),
      bus.serve(s.check, on(events.check), queue),
      bus.serve(s.verify, on(disputes.verify), queue),
      bus.serve(s.arbitrate, on(disputes.arbitrate), queue),
      bus.serve(s.createDispute, write(s.createDispute, disputes.createDispute), queue),
      bus.serve(s.listDisputes, on(disputes.list), queue),
      bus.serve(s.getDispute, on(disputes.getOne), queue),
      bus.serve(s.arbitrateDispute, write(s.arbitrateDispute, disputes.arbitrateDispute), queue),
      bus.serve(s.decideDispute, write(s.decideDispute, disputes.decideDispute), queue),
      bus.serve(s.createContract, write(s.createContract, contracts.create), queue),
      bus.serve(s.listContracts, on(contracts.list), queue),
      bus.serve(s.getContract, on(contracts.getOne), queue),
      bus.serve(s.breach, write(s.breach, contracts.breach), queue),
      bus.serve(s.health, on(contracts.health), queue),
      bus.serve(s.moveContract, write(s.moveContract, contracts.move), queue),
      bus.serve(s.remediate, write(s.remediate, contracts.remediate), queue),
      bus.serve(s.recordInteraction, write(s.recordInteraction, interactions.record), queue),
      bus.serve(s.observe, write(s.observe, interactions.observe), queue),
      bus.serve(s.listChains, on(interactions.chains), queue),
      bus.serve(s.getChain, on(interactions.chain), queue),
      bus.serve(s.anomalies, on(interactions.anomalies), queue),
      bus.subscribe(
        subjects.executionsAppended,
        ({ data }) => {
          this.#appended.push({ id: data.id, outcome: data.outcome });
          if (this.#appended.length >= LINK_BATCH_MAX) void this.#link();
        },
        queue,
      ),
    ];
  }

  #changed(subject: string, request: unknown, value: unknown): void {
    const r = request as { subjectId?: unknown; caller?: { tenantId?: unknown } };
    const v = value as { id?: unknown } | null;
    try {
      this.#deps.bus.publish(subjects.trustChanged, {
        what: subject.slice(subject.lastIndexOf('.') + 1),
        ...(typeof v?.id === 'string' ? { id: v.id } : {}),
        ...(typeof r.subjectId === 'string' ? { subjectId: r.subjectId } : {}),
        ...(typeof r.caller?.tenantId === 'string' ? { tenantId: r.caller.tenantId } : {}),
      });
    } catch (err) {
      this.#logger.warn({ err, subject }, 'a trust change could not be published');
    }
  }

  /** Link what has gathered, one batch at a time (in order, so a later batch never overtakes). */
  #link(): Promise<void> {
    const batch = this.#appended;
    if (batch.length === 0) return this.#linking;
    this.#appended = [];
    this.#linking = this.#linking
      .then(() => interactions.appended(this.#deps, batch))
      .catch((err: unknown) => this.#logger.warn({ err, executions: batch.length }, 'linking appended executions failed'));
    return this.#linking;
  }

  protected override async stopped(): Promise<void> {
    await this.#link();
  }
}
