import { Type } from 'typebox';
import { configuredProviders, generatePolicy, type LlmProvider, type LlmSettings } from '../../../core/policy/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';

const GenerateBody = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 4000 }),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
}, { additionalProperties: false });

/**
 * `POST /ai/policy/generate` and `GET /ai/providers` (public; docs/AI-POLICY.md).
 *
 * The generator runs here, on the edge, with no bus request: it is a pure function of the request
 * body (no state, no storage, no clock, no model), so an actor would only add a network hop and a
 * failure mode. The provider list is fixed by the configuration, computed once at start.
 */
export function aiRoutes(llm: LlmSettings): EdgeRoutes {
  const providers: readonly LlmProvider[] = configuredProviders(llm);
  return (app) => {
    app.post('/ai/policy/generate', {
      config: { authority: { kind: 'public' } },
      schema: { body: GenerateBody },
    }, async (request, reply) => {
      if (request.body.description.trim() === '') {
        return sendError(reply, { code: 'INVALID_REQUEST', message: 'body/description must contain some words' });
      }
      return reply.send(generatePolicy(request.body));
    });

    app.get('/ai/providers', { config: { authority: { kind: 'public' } } }, async () => ({ providers }));
  };
}
