import { Type, type Static } from 'typebox';

export const Scope = Type.String({ minLength: 1, maxLength: 200 });

/** Who asked, as the edge established it (a bus payload is validated again, never trusted blindly). */
export const CallerSchema = Type.Object({
  kind: Type.Union([Type.Literal('token'), Type.Literal('admin')]),
  sub: Type.String(),
  /** The caller's own scopes: a token can only hand on authority it holds (attenuation). */
  scope: Type.Array(Type.String()),
  jti: Type.Optional(Type.String()),
  tenantId: Type.Optional(Type.String()),
  /** The conditions its token binds to scope entries (claim `cnd`): a token it issues must carry them too. */
  conditions: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type Caller = Static<typeof CallerSchema>;

export const IssueRequest = Type.Object({
  sub: Type.String({ minLength: 1, maxLength: 256 }),
  scope: Type.Array(Scope, { minItems: 1, maxItems: 100 }),
  expiresIn: Type.Optional(Type.String({ maxLength: 16 })),
  aud: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  proof: Type.Optional(Type.Object({ nonce: Type.String({ maxLength: 256 }), signature: Type.String({ maxLength: 512 }) })),
  conditions: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.String({ minLength: 1, maxLength: 1024 }), { maxProperties: 20 })),
  caller: CallerSchema,
});
export const IssueReply = Type.Object({
  token: Type.String(),
  kid: Type.String(),
  jti: Type.String(),
  iat: Type.Integer(),
  exp: Type.Integer(),
});

export const ValidateRequest = Type.Object({
  token: Type.String({ maxLength: 8192 }),
  requiredScope: Type.Optional(Scope),
  caller: CallerSchema,
});
export const ValidateReply = Type.Union([
  Type.Object({
    valid: Type.Literal(true),
    sub: Type.String(),
    scope: Type.Array(Type.String()),
    exp: Type.Integer(),
    requiredScope: Type.Optional(Type.String()),
    scopeSatisfied: Type.Optional(Type.Boolean()),
  }),
  Type.Object({
    valid: Type.Literal(false),
    error: Type.String(),
    requiredScope: Type.Optional(Type.String()),
    scopeSatisfied: Type.Optional(Type.Boolean()),
  }),
]);

export const RevokeTokenRequest = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 8192 })),
  jti: Type.Optional(Type.String({ maxLength: 128 })),
  caller: CallerSchema,
});
export const RevokeTokenReply = Type.Object({ revoked: Type.Boolean(), jti: Type.String() });
