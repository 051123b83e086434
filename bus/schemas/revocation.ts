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
