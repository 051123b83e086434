import { randomBytes } from 'node:crypto';
import { clipText, type Bus, type RequestOf, type Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { SuiteError } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import {
  currentPin,
  insertAttestation,
  insertPin,
  listAttestations,
  listCurrentPins,
  pinHistory,
  supersedePin,
  type ModelPin,
} from '../../../storage/index.ts';
import type { AuditBatcher } from '../../../actors/audit/index.ts';
import { replyOf } from '../../../actors/base/index.ts';
import { compareFingerprint } from './compare.ts';
import { BusActor } from '../../../actors/base/index.ts';

export interface ModelActorOptions {
  bus: Bus;
  storage: Storage;
  audit: AuditBatcher;
}

/** Model pins: approve a baseline, supersede it, attest observations against it (spec, "Model pin"). */
export class ModelActor extends BusActor {
  readonly #o: ModelActorOptions;

  constructor(o: ModelActorOptions) {
    super();
    this.#o = o;
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    const queue = { queue: 'models' };
    return [
      bus.serve(subjects.modelsPin, ({ data }) => replyOf(() => this.#pin(data)), queue),
      bus.serve(subjects.modelsSupersede, ({ data }) => replyOf(() => this.#supersede(data)), queue),
      bus.serve(subjects.modelsAttest, ({ data }) => replyOf(() => this.#attest(data)), queue),
      bus.serve(subjects.modelsList, () => replyOf(async () => ({ models: await listCurrentPins(this.#o.storage.pool) })), queue),
      bus.serve(subjects.modelsGet, ({ data }) => replyOf(() => this.#get(data.name, data.limit)), queue),
    ];
  }

  async #pin(req: RequestOf<typeof subjects.modelsPin>): Promise<ModelPin> {
    const pin = await insertPin(this.#o.storage.pool, { ...approval(req), recordedBy: req.caller.sub });
    if (pin === null) {
      throw new SuiteError('CONFLICT', `model "${req.name}" is already pinned; a baseline is replaced only by POST /models/${req.name}/supersede`);
    }
    await this.#audit(req, 'model:pin', `pinned baseline 1 (${describe(pin)}) approved by ${pin.approvedBy}`);
    return pin;
  }

  async #supersede(req: RequestOf<typeof subjects.modelsSupersede>): Promise<ModelPin> {
    const pin = await supersedePin(this.#o.storage.pool, { ...approval(req), recordedBy: req.caller.sub });
    if (pin === null) throw new SuiteError('NOT_FOUND', `no model is pinned under "${req.name}"; pin it first with POST /models`);
    await this.#audit(req, 'model:supersede', `baseline ${pin.baseline} (${describe(pin)}) supersedes ${pin.supersedes}, approved by ${pin.approvedBy}`);
    return pin;
  }

  async #attest(req: RequestOf<typeof subjects.modelsAttest>) {
    const { pool } = this.#o.storage;
    const pin = await currentPin(pool, req.name);
    if (pin === null) throw new SuiteError('NOT_FOUND', `no model is pinned under "${req.name}"`);
    const { state, drift, finding } = compareFingerprint(pin, req.fingerprint);
    const attestation = await insertAttestation(pool, {
      id: `att_${randomBytes(16).toString('hex')}`,
      name: req.name,
      baseline: pin.baseline,
      observed: req.fingerprint,
      state,
      drift,
      finding,
      attestedBy: req.caller.sub,
    });
    await this.#audit(
      req,
      'model:attest',
      `${state} against baseline ${pin.baseline}${drift.length ? ` (drift in ${drift.map((d) => d.field).join(', ')})` : ''}`,
    );
    return attestation;
  }

  async #get(name: string, limit: number) {
    const { pool } = this.#o.storage;
    const baselines = await pinHistory(pool, name);
    const current = baselines.find((p) => p.supersededAt === null);
    if (current === undefined) throw new SuiteError('NOT_FOUND', `no model is pinned under "${name}"`);
    const { attestations, total } = await listAttestations(pool, name, limit);
    return { name, current, baselines, attestations, attestationCount: total };
  }

  /** The pin or attestation is committed: never answered as failed because its entry is late. */
  async #audit(req: { name: string; caller: RequestOf<typeof subjects.modelsPin>['caller'] }, action: string, reason: string): Promise<void> {
    await this.#o.audit.recordEffect({
      subject: req.caller.sub,
      action,
      resource: `model:${req.name}`,
      result: 'allow',
      reason: clipText(reason, 1024),
      tenantId: req.caller.tenantId ?? null,
    });
  }
}

function approval(req: RequestOf<typeof subjects.modelsPin>) {
  return { name: req.name, fingerprint: req.fingerprint, approvedBy: req.approvedBy, basis: req.basis };
}

function describe(pin: ModelPin): string {
  return `${pin.fingerprint.provider}/${pin.fingerprint.model}@${pin.fingerprint.version}`;
}
