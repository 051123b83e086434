import type { KeyObject } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { SuiteError } from '../../../bus/index.ts';
import { findTraceKeys } from '../../../storage/index.ts';
import { ed25519PublicKey, type KeyLookup } from '../../../core/chain/index.ts';

/**
 * Which keys a verification trusts. Either one key the caller supplied (pinned: every record is
 * checked against it, whatever keyId it names), or the keys the writers published, by keyId. A
 * published ephemeral key counts only while the writer that made it still leads; after a restart
 * the records it signed fail, as the spec says (Configuration, SUITE_TRACE_PRIVATE_KEY).
 *
 * Trust boundary: published keys live in the same database as the records, so someone able to
 * rewrite both could publish a key of their own; an auditor who pins the public key they obtained
 * earlier (`publicKey` on POST /executions/verify) is not exposed to that.
 */
export class VerificationKeys {
  readonly #db: CommonQueryMethods;
  readonly #pinned: KeyObject | undefined;
  readonly #known = new Map<string, KeyObject | undefined>();
  readonly #retired = new Set<string>();
  /** The retired ephemeral key the last failing record named, if that is why it failed. */
  #retiredMiss: string | undefined;

  private constructor(db: CommonQueryMethods, pinned: KeyObject | undefined) {
    this.#db = db;
    this.#pinned = pinned;
  }

  static published(db: CommonQueryMethods): VerificationKeys {
    return new VerificationKeys(db, undefined);
  }

  /** A caller's PEM; INVALID_REQUEST when it is not an Ed25519 public key. */
  static pinned(db: CommonQueryMethods, pem: string): VerificationKeys {
    let key: KeyObject;
    try {
      key = ed25519PublicKey(pem);
    } catch {
      throw new SuiteError('INVALID_REQUEST', 'publicKey must be an Ed25519 public key in PEM (SPKI) form');
    }
    return new VerificationKeys(db, key);
  }

  get isPinned(): boolean {
    return this.#pinned !== undefined;
  }

  /** The caller's key, when pinned. */
  get pinnedKey(): KeyObject | undefined {
    return this.#pinned;
  }

  /** The usable published keys loaded so far, by keyId (for verification threads). */
  usableKeys(): ReadonlyMap<string, KeyObject> {
    const usable = new Map<string, KeyObject>();
    for (const [id, key] of this.#known) if (key) usable.set(id, key);
    return usable;
  }

  /** Load, once per verification, the published keys these records name (one query per page). */
  async prefetch(keyIds: Iterable<string>): Promise<void> {
    if (this.#pinned) return;
    const missing = [...new Set(keyIds)].filter((id) => !this.#known.has(id));
    if (missing.length === 0) return;
    const rows = await findTraceKeys(this.#db, missing);
    for (const id of missing) this.#known.set(id, undefined);
    for (const row of rows) {
      if (!row.usable) {
        this.#retired.add(row.keyId);
        continue;
      }
      try {
        this.#known.set(row.keyId, ed25519PublicKey(row.publicKeyPem));
      } catch {
        // A published row that is not an Ed25519 key names no key: its records fail to verify.
      }
    }
  }

  /**
   * Synchronous look-up for the pure verifier; call `prefetch` for the page first. The verifier asks
   * for a key only once a record's sequence, content and link are good, so a retired key asked for
   * here is exactly why that record failed.
   */
  readonly lookup: KeyLookup = (keyId) => {
    const key = this.#pinned ?? this.#known.get(keyId);
    if (!key && this.#retired.has(keyId)) this.#retiredMiss = keyId;
    return key;
  };

  /**
   * When the last failure was a restarted ephemeral writer's key, the reason in words (the plain
   * "no public key" would mislead); cleared once read.
   */
  takeRetiredReason(): string | undefined {
    const keyId = this.#retiredMiss;
    this.#retiredMiss = undefined;
    if (keyId === undefined) return undefined;
    return (
      `signed with the ephemeral key ${keyId}, whose writer is no longer running: ` +
      'records signed with an ephemeral key stop verifying after a restart (configure SUITE_TRACE_PRIVATE_KEY)'
    );
  }
}
