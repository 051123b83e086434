import { setTimeout as sleep } from 'node:timers/promises';
import { SuiteError } from '../../../bus/index.ts';
import type { Bus, Subscription } from '../../../bus/index.ts';
import { subjects, type RecordRequestData } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import { findExecutionByIdempotencyKey, registerTraceKey, type NewExecution } from '../../../storage/index.ts';
import { ChainWriter, type ChainWriterOptions } from '../../../actors/chain-writer/index.ts';
import type { ChainMetrics } from '../../../observability/index.ts';
import { canonicalJson, type ExecutionRecord, type TraceSigner } from '../../../core/chain/index.ts';
import { replyOf } from '../../../actors/base/index.ts';
import { executionChainSpec, newExecutionId, type ExecutionAppend } from './chain-spec.ts';
import { costProblem } from '../../../core/chain/index.ts';

type Logger = NonNullable<ChainWriterOptions<ExecutionAppend, NewExecution>['logger']>;
type Recorded = { record: ExecutionRecord; replayed: boolean };

export interface ExecutionWriterActorOptions {
  bus: Bus;
  storage: Storage;
  signer: TraceSigner;
  /** Unique per process: who holds the executions chain's lease. */
  holder: string;
  leaseMs?: number;
  renewMs?: number;
  maxBatch?: number;
  logger?: Logger;
  metrics?: ChainMetrics;
  /** The transparency log's tree (services/spine/tlog): told of each commit and of leadership. */
  log?: CommitFollower;
}

/** What follows the chain's commits in the leading writer's process, off the commit path. */
export interface CommitFollower {
  committed(records: readonly ExecutionRecord[]): void;
  resume(): Promise<void>;
  pause(): Promise<void>;
}

/**
 * The execution chain's writer on the bus (DESIGN, "The chain writer"). It answers
 * `suite.executions.record` only while it leads, and only once its public key is published, so a
 * record it signs always names a key a verifier can find. After each commit it broadcasts
 * `suite.executions.appended` (identifiers only, never payloads).
 */
export class ExecutionWriterActor {
  readonly #o: ExecutionWriterActorOptions;
  readonly #writer: ChainWriter<ExecutionAppend, NewExecution>;
  /** Requests with an Idempotency-Key being answered, by token subject and key. */
  readonly #inFlight = new Map<string, Promise<Recorded>>();
  #serving: Subscription | undefined;
  #leading: Promise<void> | undefined;

  constructor(o: ExecutionWriterActorOptions) {
    this.#o = o;
    this.#writer = new ChainWriter({
      storage: o.storage,
      spec: executionChainSpec(o.signer),
      holder: o.holder,
      ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
      ...(o.renewMs !== undefined ? { renewMs: o.renewMs } : {}),
      ...(o.maxBatch !== undefined ? { maxBatch: o.maxBatch } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
      onCommitted: (records) => {
        this.#announce(records);
        o.log?.committed(records);
      },
      onLeadership: (leader) => {
        if (leader) this.#leading = this.#lead();
        else void this.#unserve();
        if (leader) void o.log?.resume();
        else void o.log?.pause();
      },
    });
  }

  get isLeader(): boolean {
    return this.#writer.isLeader;
  }

  /** Its commits keep failing (ChainWriter `stalled`): `/ready` of this process answers 503. */
  get stalled(): boolean {
    return this.#writer.stalled;
  }

  get keyId(): string {
    return this.#o.signer.keyId;
  }

  async start(): Promise<void> {
    if (this.#o.signer.ephemeral) {
      // Spec, Configuration: without SUITE_TRACE_PRIVATE_KEY every earlier trace fails after a restart.
      this.#o.logger?.warn(
        { keyId: this.#o.signer.keyId },
        'SUITE_TRACE_PRIVATE_KEY is not set: execution traces are signed with an EPHEMERAL key; after a restart every trace signed now fails verification',
      );
    }
    await this.#writer.start();
    await this.#leading;
  }

  async stop(): Promise<void> {
    await this.#unserve();
    await this.#writer.stop();
  }

  /** Register our key, serve, then announce the key; a database hiccup delays serving, never signs with an unregistered key. */
  async #lead(): Promise<void> {
    const { storage, signer, holder, logger } = this.#o;
    for (let delay = 100; this.#writer.isLeader; delay = Math.min(delay * 2, 5000)) {
      try {
        const ok = await registerTraceKey(storage.pool, { keyId: signer.keyId, publicKeyPem: signer.publicKeyPem, ephemeral: signer.ephemeral, holder });
        if (!ok) throw new Error(`key id ${signer.keyId} is already published for a different public key`);
        if (this.#writer.isLeader) {
          this.#serve();
          // Announced once the subscription reached the server: edges send the appends they had in
          // flight again on it (services/spine/routes/carried-append.ts), and find this writer
          // serving rather than no responders.
          await this.#o.bus.flush().catch(() => undefined);
        }
        this.#o.bus.publish(subjects.executionsKeyPublished, { keyId: signer.keyId });
        return;
      } catch (err) {
        logger?.error({ err, keyId: signer.keyId }, 'could not publish the trace key; not serving appends yet');
        await sleep(delay);
      }
    }
  }

  #serve(): void {
    if (this.#serving) return;
    this.#serving = this.#o.bus.serve(subjects.executionsRecord, ({ data }) => replyOf(() => this.#record(data)), { queue: 'chain-writer.executions' });
  }

  async #unserve(): Promise<void> {
    const s = this.#serving;
    this.#serving = undefined;
    await s?.unsubscribe();
  }

  async #record(data: RecordRequestData): Promise<Recorded> {
    // The edge checked the cost rules; a bus payload is checked again (DESIGN, "The bus").
    const problem = data.claim.cost ? costProblem(data.claim.cost) : undefined;
    if (problem) throw new SuiteError('INVALID_REQUEST', problem);
    const input: ExecutionAppend = {
      id: newExecutionId(),
      claim: data.claim,
      attested: data.attested,
      timestamp: data.timestamp,
      idempotencyKey: data.idempotencyKey ?? null,
      ...(data.audit ? { audit: data.audit } : {}),
    };
    if (input.idempotencyKey === null) return { record: publicRecord(await this.#appendOne(input)), replayed: false };

    // The in-flight entry is set before any await, so a concurrent retry always finds it; it is
    // removed only once the record is committed (or failed), when the database lookup sees it.
    const k = `${data.attested.sub}\n${input.idempotencyKey}`;
    const pending = this.#inFlight.get(k);
    if (pending !== undefined) return sameClaimOrConflict(await pending, data, true);
    const answer = this.#firstTime(input);
    this.#inFlight.set(k, answer);
    const forget = () => this.#inFlight.delete(k);
    answer.then(forget, forget);
    return sameClaimOrConflict(await answer, data, false);
  }

  async #firstTime(input: ExecutionAppend): Promise<Recorded> {
    const known = await findExecutionByIdempotencyKey(this.#o.storage.pool, input.attested.sub, input.idempotencyKey as string);
    if (known) return { record: known, replayed: true };
    return { record: publicRecord(await this.#appendOne(input)), replayed: false };
  }

  async #appendOne(input: ExecutionAppend): Promise<NewExecution> {
    const [record] = await this.#writer.append([input]);
    return record as NewExecution;
  }

  #announce(records: readonly NewExecution[]): void {
    for (const r of records) {
      this.#o.bus.publish(subjects.executionsAppended, { id: r.id, seq: r.seq, hash: r.hash, subject: r.subject, outcome: r.outcome });
    }
  }
}

function publicRecord(r: NewExecution): ExecutionRecord {
  const { idempotencyKey: _unsigned, canonical: _stored, audit: _carried, ...record } = r;
  return record;
}

/**
 * A retry must repeat the request it retries: the same key with a different claim is a client
 * error (409), never silently answered with a record of something else.
 */
function sameClaimOrConflict(found: Recorded, data: RecordRequestData, waited: boolean): Recorded {
  const r = found.record;
  const stored = {
    subject: r.subject,
    scope: r.scope,
    module: r.module,
    action: r.action,
    outcome: r.outcome,
    inputHash: r.inputHash,
    outputHash: r.outputHash,
    cost: r.cost,
    governance: r.governance,
  };
  const c = data.claim;
  const asked = {
    subject: c.subject,
    scope: c.scope,
    module: c.module,
    action: c.action,
    outcome: c.outcome,
    inputHash: c.inputHash,
    outputHash: c.outputHash,
    cost: c.cost,
    governance: c.governance,
  };
  if (canonicalJson(stored) !== canonicalJson(asked)) {
    throw new SuiteError('CONFLICT', 'Idempotency-Key was already used for a different execution');
  }
  return waited ? { record: r, replayed: true } : found;
}
