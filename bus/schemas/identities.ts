import { Type, type Static } from 'typebox';
import { CallerSchema } from './tokens.ts';

/**
 * Identities (spec, "Identity"): enrolment, challenge, suspension. A subject is the `sub` its tokens
 * carry; no control characters (it appears in URLs, audit entries and logs) and no lone surrogate.
 */
const SUBJECT = '^(?:[^\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])+$';
export const IdentitySubject = Type.String({ minLength: 1, maxLength: 256, pattern: SUBJECT });
/** `agent` is the spec's; `human` and `service` are ours (docs/IDENTITIES.md). */
export const IdentityKind = Type.Union([Type.Literal('agent'), Type.Literal('human'), Type.Literal('service')]);
export const PublicKeyPem = Type.String({ minLength: 1, maxLength: 4096 });
export const SuspensionReason = Type.String({ minLength: 1, maxLength: 1024, pattern: '\\S' });

export const IdentitySchema = Type.Object({
  subject: Type.String(),
  kind: IdentityKind,
  publicKeyPem: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  enrolledAt: Type.String(),
  /** Only once suspended. */
  reason: Type.Optional(Type.String()),
  suspendedAt: Type.Optional(Type.String()),
});
export type IdentityData = Static<typeof IdentitySchema>;

export const EnrolRequest = Type.Object({ subject: IdentitySubject, kind: IdentityKind, publicKeyPem: PublicKeyPem, caller: CallerSchema });
export const EnrolReply = IdentitySchema;

export const GetIdentityRequest = Type.Object({ subject: Type.String({ minLength: 1, maxLength: 1024 }) });
export const GetIdentityReply = IdentitySchema;

export const ChallengeRequest = Type.Object({ subject: Type.String({ minLength: 1, maxLength: 1024 }) });
/** `nonce`: 32 random bytes, base64url; sign its UTF-8 bytes (the string as given) with the identity's key. */
export const ChallengeReply = Type.Object({ nonce: Type.String(), expiresAt: Type.String() });

export const SuspendRequest = Type.Object({ subject: Type.String({ minLength: 1, maxLength: 1024 }), reason: SuspensionReason, caller: CallerSchema });
export const SuspendReply = Type.Object({
  subject: Type.String(),
  status: Type.Literal('suspended'),
  reason: Type.String(),
  suspendedAt: Type.String(),
  /** The subject's unexpired tokens now revoked (all of them, on every service). */
  revokedTokens: Type.Integer({ minimum: 0 }),
});
