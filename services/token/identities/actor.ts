import { randomBytes } from 'node:crypto';
import { clipText, type Bus, type RequestOf, type Subscription } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { SuiteError } from '../../../bus/index.ts';
import type { IdentityData } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import { findIdentity, insertIdentity, insertNonce, liveTokensOf, lockSubject, pruneNonces, suspendIdentity, type Identity } from '../../../storage/index.ts';
import type { AuditBatcher } from '../../../actors/audit/index.ts';
import { replyOf } from '../../../actors/base/index.ts';
import { parseEd25519PublicKey } from './public-key.ts';
import { normaliseSubject } from '../../../core/subject/index.ts';
import { BusActor } from '../../../actors/base/index.ts';

export interface IdentityActorOptions {
  bus: Bus;
  storage: Storage;
  audit: AuditBatcher;
  /** How long a challenge nonce can be used (docs/IDENTITIES.md); default 120 s. */
  nonceTtlMs?: number;
  pruneEveryMs?: number;
  clock?: () => number;
  logger?: { warn(o: object, m?: string): void };
}

export const DEFAULT_NONCE_TTL_MS = 120_000;
/** Revocations sent per bus request when a suspension revokes many tokens. */
const REVOKE_CHUNK = 500;

/** Enrolment, challenges and suspension of identities (token service; spec, "Identity"). */
export class IdentityActor extends BusActor {
  readonly #o: IdentityActorOptions;
  readonly #clock: () => number;

  constructor(o: IdentityActorOptions) {
    super();
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    const queue = { queue: 'identities' };
    const subs = [
      bus.serve(subjects.identitiesEnrol, ({ data }) => replyOf(() => this.#enrol(data)), queue),
      bus.serve(subjects.identitiesGet, ({ data }) => replyOf(() => this.#get(lookupForm(data.subject))), queue),
      bus.serve(subjects.identitiesChallenge, ({ data }) => replyOf(() => this.#challenge(lookupForm(data.subject))), queue),
      bus.serve(subjects.identitiesSuspend, ({ data }) => replyOf(() => this.#suspend({ ...data, subject: lookupForm(data.subject) })), queue),
    ];
    this.every(this.#o.pruneEveryMs ?? 60_000, () => void this.#pruneOnce(), 'identities.prune');
    return subs;
  }

  async #enrol(sent: RequestOf<typeof subjects.identitiesEnrol>): Promise<IdentityData> {
    // One stored spelling of a subject, and no look-alikes (core/subject; docs/IDENTITIES.md, "Subjects").
    const rule = normaliseSubject(sent.subject);
    if (!rule.ok) throw new SuiteError('INVALID_REQUEST', `subject ${rule.problem}`);
    const req = { ...sent, subject: rule.subject };
    const parsed = parseEd25519PublicKey(req.publicKeyPem);
    if (!parsed.ok) throw new SuiteError('INVALID_REQUEST', parsed.problem);
    const { pool } = this.#o.storage;
    // Exclusive subject lock: an issuance under way for this subject finishes first, and any later
    // one sees the identity (and so needs proof).
    const identity = await pool.transaction(async (tx) => {
      await lockSubject(tx, req.subject, 'exclusive');
      return insertIdentity(tx, { subject: req.subject, kind: req.kind, publicKeyPem: parsed.pem, enrolledBy: req.caller.sub });
    });
    if (identity === null) {
      throw new SuiteError('CONFLICT', `"${req.subject}" is already enrolled; an enrolment is never replaced (see docs/IDENTITIES.md)`);
    }
    // Enrolled (committed): answered as done even while the entry waits for a stalled trail.
    await this.#o.audit.recordEffect({
      subject: req.caller.sub,
      action: 'identity:enrol',
      resource: `identity:${req.subject}`,
      result: 'allow',
      reason: `enrolled ${req.kind} with key ${parsed.keyId}`,
      tenantId: req.caller.tenantId ?? null,
    });
    return present(identity);
  }

  async #get(subject: string): Promise<IdentityData> {
    const identity = await findIdentity(this.#o.storage.pool, subject);
    if (identity === null) throw new SuiteError('NOT_FOUND', 'no identity is enrolled under this subject');
    return present(identity);
  }

  async #challenge(subject: string): Promise<{ nonce: string; expiresAt: string }> {
    const { pool } = this.#o.storage;
    const nonce = randomBytes(32).toString('base64url');
    const stored = await insertNonce(pool, { nonce, subject, ttlMs: this.#o.nonceTtlMs ?? DEFAULT_NONCE_TTL_MS });
    if (stored !== null) return { nonce, expiresAt: stored.expiresAt };
    // No nonce is stored for an unknown or suspended subject, so this public route cannot fill the table.
    const identity = await findIdentity(pool, subject);
    if (identity === null) throw new SuiteError('NOT_FOUND', 'no identity is enrolled under this subject');
    throw new SuiteError('IDENTITY_SUSPENDED', `identity "${subject}" is suspended; no new tokens are issued in its name`);
  }

  async #suspend(req: RequestOf<typeof subjects.identitiesSuspend>) {
    const { pool } = this.#o.storage;
    const now = Math.floor(this.#clock() / 1000);
    // The exclusive lock waits for issuances under way, so their tokens are in the list below; later
    // issuances read the new status and are refused (services/token/identities/issuance.ts).
    // Nothing is thrown inside the transaction: slonik would destroy the connection (issuance.ts).
    const suspension = await pool.transaction(async (tx) => {
      await lockSubject(tx, req.subject, 'exclusive');
      // Already suspended: keep the first reason and time, and revoke again (a safe retry when the
      // revocations of the first attempt did not all go through).
      const identity = (await suspendIdentity(tx, { subject: req.subject, reason: req.reason, by: req.caller.sub })) ?? (await findIdentity(tx, req.subject));
      return identity && { identity, tokens: await liveTokensOf(tx, req.subject, now) };
    });
    if (suspension === null) throw new SuiteError('NOT_FOUND', 'no identity is enrolled under this subject');
    const { identity, tokens } = suspension;
    const { reason, suspendedAt } = identity;
    // The table's check constraint makes both present once suspended.
    if (reason === null || suspendedAt === null) throw new SuiteError('INTERNAL_ERROR', 'suspended identity without reason or time');
    let revoked = 0;
    for (let i = 0; i < tokens.length; i += REVOKE_CHUNK) {
      const chunk = tokens.slice(i, i + REVOKE_CHUNK);
      const result = await this.#o.bus.request(subjects.revocationRevokeMany, { entries: chunk, by: req.caller.sub });
      if (!result.ok)
        throw new SuiteError(
          result.error.code,
          `identity suspended, but revoking its tokens failed (${result.error.message}); repeat the suspension to finish`,
        );
      revoked += result.value.revoked;
    }
    await this.#o.audit.recordEffect({
      subject: req.caller.sub,
      action: 'identity:suspend',
      resource: `identity:${req.subject}`,
      result: 'allow',
      reason: clipText(`suspended, ${revoked} token(s) revoked: ${reason}`, 1024),
      tenantId: req.caller.tenantId ?? null,
    });
    return { subject: identity.subject, status: 'suspended' as const, reason, suspendedAt, revokedTokens: revoked };
  }

  async #pruneOnce(): Promise<void> {
    try {
      await pruneNonces(this.#o.storage.pool);
    } catch (err) {
      this.#o.logger?.warn({ err }, 'pruning expired identity nonces failed');
    }
  }
}

function present(i: Identity): IdentityData {
  return {
    subject: i.subject,
    kind: i.kind,
    publicKeyPem: i.publicKeyPem,
    status: i.status,
    enrolledAt: i.enrolledAt,
    ...(i.reason !== null ? { reason: i.reason } : {}),
    ...(i.suspendedAt !== null ? { suspendedAt: i.suspendedAt } : {}),
  };
}

/** A subject as sent to a look-up, in its stored form when it has one (an NFD spelling finds the NFC row). */
function lookupForm(subject: string): string {
  const rule = normaliseSubject(subject);
  return rule.ok ? rule.subject : subject;
}
