import { SuiteError } from '../../../../bus/index.ts';
import type { Bus, Subscription } from '../../../../bus/index.ts';
import { subjects } from '../../../../bus/index.ts';
import type { Storage } from '../../../../storage/index.ts';
import { replyOf } from '../../../../actors/base/index.ts';
import type { ChainResult } from '../verify.ts';
import { authorityOf, costOf, statsOf, unknownsOf } from './aggregate-reads.ts';
import { conditionsOf, explanationOf, lineageOf, listNeedingAttention, listRecords, replayOf } from './record-reads.ts';
import { BusActor } from '../../../../actors/base/index.ts';

/** A whole-chain verification reads every record: a million take minutes. */
const CHAIN_VERIFY_TIMEOUT_MS = 600_000;

/**
 * The read models of the execution chain (docs/EXECUTION-READS.md) on any number of replicas (queue
 * group `executions`, beside ExecutionReaderActor): lists, one record's conditions, explanation,
 * replay comparison and lineage, and aggregates over the chain. Read only; every request may carry
 * a `tenantId`, and then only that tenant's records are read. The edge decides who may ask.
 */
export class ExecutionReadModelActor extends BusActor {
  readonly #bus: Bus;
  readonly #storage: Storage;

  constructor(o: { bus: Bus; storage: Storage }) {
    super();
    this.#bus = o.bus;
    this.#storage = o.storage;
  }

  protected subscriptions(): Subscription[] {
    const queue = { queue: 'executions' };
    const db = () => this.#storage.pool;
    return [
      this.#bus.serve(subjects.executionsList, ({ data }) => replyOf(() => listRecords(db(), data)), queue),
      this.#bus.serve(subjects.executionsAttention, ({ data }) => replyOf(() => listNeedingAttention(db(), data)), queue),
      this.#bus.serve(subjects.executionsConditions, ({ data }) => replyOf(() => conditionsOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsExplain, ({ data }) => replyOf(() => explanationOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsReplay, ({ data }) => replyOf(() => replayOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsLineage, ({ data }) => replyOf(() => lineageOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsStats, ({ data }) => replyOf(() => statsOf(db(), data, () => this.#verifyChain())), queue),
      this.#bus.serve(subjects.executionsUnknowns, ({ data }) => replyOf(() => unknownsOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsAuthority, ({ data }) => replyOf(() => authorityOf(db(), data)), queue),
      this.#bus.serve(subjects.executionsCost, ({ data }) => replyOf(() => costOf(db(), data)), queue),
    ];
  }

  /**
   * The live chain check of the stats, asked of the execution reader over the bus rather than run
   * here: the reader shares one run among every request that arrives while it is under way, so
   * stats and GET /executions-verify-chain never stack up scans of the whole chain.
   */
  async #verifyChain(): Promise<ChainResult> {
    const r = await this.#bus.request(subjects.executionsVerify, {}, { timeoutMs: CHAIN_VERIFY_TIMEOUT_MS });
    if (!r.ok) throw new SuiteError(r.error.code, r.error.message);
    if (r.value.mode !== 'chain') throw new SuiteError('INTERNAL_ERROR', 'the chain verification answered for one record');
    return r.value;
  }
}
