import { Type } from 'typebox';
import { Text } from './executions.ts';
import { CallerSchema } from './tokens.ts';

/**
 * Model pins (spec, "Model pin"): an approved fingerprint per name, replaced only by supersede, and
 * attestations that compare an observed fingerprint with it. The suite records the claims and the
 * comparison; it does not judge models (core rule 4).
 */
export const ModelName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$' });

export const FingerprintSchema = Type.Object(
  {
    provider: Text(256),
    model: Text(256),
    version: Text(256),
  },
  { additionalProperties: false },
);

export const PinSchema = Type.Object({
  name: Type.String(),
  baseline: Type.Integer({ minimum: 1 }),
  fingerprint: Type.Object({ provider: Type.String(), model: Type.String(), version: Type.String() }),
  approvedBy: Type.String(),
  basis: Type.String(),
  approvedAt: Type.String(),
  supersedes: Type.Union([Type.Integer(), Type.Null()]),
  supersededAt: Type.Union([Type.String(), Type.Null()]),
});

const FingerprintField = Type.Union([Type.Literal('provider'), Type.Literal('model'), Type.Literal('version')]);
export const AttestationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** The baseline the observation was compared with (the current one at the time). */
  baseline: Type.Integer({ minimum: 1 }),
  state: Type.Union([Type.Literal('MATCHED'), Type.Literal('FAILED')]),
  drift: Type.Array(Type.Object({ field: FingerprintField, approved: Type.String(), observed: Type.String() })),
  finding: Type.String(),
  observed: Type.Object({ provider: Type.String(), model: Type.String(), version: Type.String() }),
  attestedAt: Type.String(),
  attestedBy: Type.String(),
});

const Approval = {
  fingerprint: FingerprintSchema,
  approvedBy: Text(256),
  basis: Text(4096),
};

export const PinRequest = Type.Object({ name: ModelName, ...Approval, caller: CallerSchema });
export const SupersedeRequest = Type.Object({ name: ModelName, ...Approval, caller: CallerSchema });
export const PinReply = PinSchema;

export const AttestRequest = Type.Object({ name: ModelName, fingerprint: FingerprintSchema, caller: CallerSchema });
export const AttestReply = AttestationSchema;

export const ListModelsRequest = Type.Object({});
export const ListModelsReply = Type.Object({ models: Type.Array(PinSchema) });

export const GetModelRequest = Type.Object({ name: ModelName, limit: Type.Integer({ minimum: 1, maximum: 500 }) });
export const GetModelReply = Type.Object({
  name: Type.String(),
  current: PinSchema,
  /** Every baseline, newest first; the first of them is `current`. */
  baselines: Type.Array(PinSchema),
  /** The newest `limit` attestations, newest first, and how many there are in all. */
  attestations: Type.Array(AttestationSchema),
  attestationCount: Type.Integer({ minimum: 0 }),
});
