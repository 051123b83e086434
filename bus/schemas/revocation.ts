import { Type } from 'typebox';

export const RevokeRequest = Type.Object({
  jti: Type.String({ minLength: 1, maxLength: 128 }),
  /** Expiry when the caller knows it (revocation by token); otherwise looked up among issued tokens. */
  exp: Type.Optional(Type.Integer()),
  by: Type.String(),
});
export const RevokeReply = Type.Object({ revoked: Type.Boolean(), jti: Type.String(), version: Type.Integer() });

export const RevocationEntry = Type.Object({ jti: Type.String(), exp: Type.Integer() });

export const SnapshotRequest = Type.Object({});
export const SnapshotReply = Type.Object({ version: Type.Integer(), entries: Type.Array(RevocationEntry) });

/** Broadcast after each durable revocation; `version` is gapless, so a missed one is noticed. */
export const RevokedEvent = Type.Object({ version: Type.Integer(), jti: Type.String(), exp: Type.Integer() });

/** Broadcast on a fixed period: lets every edge bound the staleness of its view. */
export const HeartbeatEvent = Type.Object({ version: Type.Integer(), at: Type.Integer() });

/**
 * Revoke many tokens at once (an identity's suspension). Each new revocation is broadcast as its own
 * RevokedEvent, so edges apply them exactly as single ones. Entries already expired are skipped.
 */
export const RevokeManyRequest = Type.Object({
  entries: Type.Array(RevocationEntry, { minItems: 1, maxItems: 1000 }),
  by: Type.String(),
});
/** `revoked`: how many of the entries are now revoked (new or before); `created`: how many are new. */
export const RevokeManyReply = Type.Object({ revoked: Type.Integer(), created: Type.Integer(), version: Type.Integer() });
