import type { Bus, Subscription } from '../../bus/index.ts';
import { subjects } from '../../bus/subjects.ts';
import type { Storage } from '../../storage/types.ts';
import { ChainWriter, type ChainWriterOptions } from '../chain-writer/index.ts';
import type { AuditRecord } from '../chain/index.ts';
import type { AuditInput } from '../../bus/subjects.ts';
import { auditChainSpec } from './chain-spec.ts';
import { errorData } from '../errors.ts';

export interface AuditWriterActorOptions {
  bus: Bus;
  storage: Storage;
  holder: string;
  leaseMs?: number;
  logger?: ChainWriterOptions<AuditInput, AuditRecord>['logger'];
}

/**
 * The audit chain's writer on the bus. It answers `suite.audit.append` only while it leads, so
 * requests never reach a standby; during a failover callers see no responders and retry.
 */
export class AuditWriterActor {
  readonly #bus: Bus;
  readonly #writer: ChainWriter<AuditInput, AuditRecord>;
  #serving: Subscription | undefined;

  constructor(o: AuditWriterActorOptions) {
    this.#bus = o.bus;
    this.#writer = new ChainWriter({
      storage: o.storage,
      spec: auditChainSpec,
      holder: o.holder,
      ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      onLeadership: (leader) => (leader ? this.#serve() : void this.#unserve()),
    });
  }

  get isLeader(): boolean {
    return this.#writer.isLeader;
  }

  async start(): Promise<void> {
    await this.#writer.start();
  }

  async stop(): Promise<void> {
    await this.#unserve();
    await this.#writer.stop();
  }

  #serve(): void {
    if (this.#serving) return;
    this.#serving = this.#bus.serve(subjects.auditAppend, async ({ data }) => {
      try {
        const records = await this.#writer.append(data.entries);
        return { ok: true, value: { records: records.map((r) => ({ id: r.id, seq: r.seq, hash: r.hash })) } };
      } catch (err) {
        return { ok: false, error: errorData(err) };
      }
    }, { queue: 'chain-writer.audit' });
  }

  async #unserve(): Promise<void> {
    const s = this.#serving;
    this.#serving = undefined;
    await s?.unsubscribe();
  }
}
