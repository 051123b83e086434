import { Type } from 'typebox';
import type { Bus } from '../../../bus/index.ts';
import { subjects } from '../../../bus/index.ts';
import { Text } from '../../../bus/index.ts';
import { FingerprintSchema, ModelName } from '../../../bus/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendResult } from '../../../edge-http/index.ts';
import { callerOf } from '../../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../../edge-http/index.ts';

const Approval = { fingerprint: FingerprintSchema, approvedBy: Text(256), basis: Text(4096) };
const PinBody = Type.Object({ name: ModelName, ...Approval }, { additionalProperties: false });
const SupersedeBody = Type.Object(Approval, { additionalProperties: false });
const AttestBody = Type.Object({ fingerprint: FingerprintSchema }, { additionalProperties: false });
const NameParams = Type.Object({ name: ModelName });
const GetQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }) }, { additionalProperties: false });

/** Model pins of the token service (spec, "Model pin"; docs/MODELS.md). */
export function modelRoutes(bus: Bus): EdgeRoutes {
  return (app) => {
    app.post(
      '/models',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          ...operation('models', 'pinModel', "Pin a model's approved fingerprint"),
          body: PinBody,
          response: { 201: answer(subjects.modelsPin.reply, 'Pinned: the first baseline'), ...errorsOf(409) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.modelsPin, { ...request.body, caller: callerOf(request) }), 201),
    );

    app.get(
      '/models',
      {
        config: { authority: { kind: 'scope', scope: 'model:read', admin: true } },
        schema: {
          ...operation('models', 'listModels', 'List the pinned models with their current baselines'),
          response: { 200: answer(subjects.modelsList.reply, 'Every pinned model') },
        },
      },
      async (_request, reply) => sendResult(reply, await bus.request(subjects.modelsList, {})),
    );

    app.get(
      '/models/:name',
      {
        config: { authority: { kind: 'scope', scope: 'model:read', admin: true } },
        schema: {
          ...operation('models', 'getModel', 'Read a model pin: its baselines and latest attestations'),
          params: NameParams,
          querystring: GetQuery,
          response: { 200: answer(subjects.modelsGet.reply, 'The pin, every baseline and the newest attestations'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(subjects.modelsGet, { name: request.params.name, limit: request.query.limit })),
    );

    app.post(
      '/models/:name/attest',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          ...operation('models', 'attestModel', 'Compare an observed fingerprint with the approved one'),
          params: NameParams,
          body: AttestBody,
          response: { 200: answer(subjects.modelsAttest.reply, 'The attestation: `FAILED` with the drift when they differ'), ...errorsOf(404) },
        },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(subjects.modelsAttest, {
            name: request.params.name,
            fingerprint: request.body.fingerprint,
            caller: callerOf(request),
          }),
        ),
    );

    // Replacing a baseline is this deliberate operation only, never a side effect (spec, "States").
    app.post(
      '/models/:name/supersede',
      {
        config: { authority: { kind: 'admin' } },
        schema: {
          ...operation('models', 'supersedeModel', "Replace a model's baseline, deliberately"),
          params: NameParams,
          body: SupersedeBody,
          response: { 201: answer(subjects.modelsSupersede.reply, 'The new baseline'), ...errorsOf(404) },
        },
      },
      async (request, reply) =>
        sendResult(
          reply,
          await bus.request(subjects.modelsSupersede, {
            name: request.params.name,
            ...request.body,
            caller: callerOf(request),
          }),
          201,
        ),
    );
  };
}
