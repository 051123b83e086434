import { Type } from 'typebox';
import { configuredProviders, generatePolicy, type LlmProvider, type LlmSettings } from '../../../core/policy/index.ts';
import type { EdgeRoutes } from '../../../edge-http/index.ts';
import { sendError } from '../../../edge-http/index.ts';
import { operation } from '../../../edge-http/index.ts';

const GenerateBody = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 4000 }),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);

const Strings = Type.Array(Type.String());
/** A rule: its id, what it applies to, its kind, and the kind's own fields (docs/AI-POLICY.md). */
const Rule = Type.Object({ id: Type.String(), appliesTo: Strings, kind: Type.String() }, { additionalProperties: true });
const GeneratedPolicy = Type.Object(
  {
    scopes: Strings,
    policy: Type.Object({
      policyRef: Type.String(),
      policyVersion: Type.String(),
      generator: Type.String(),
      subject: Type.Optional(Type.String()),
      scopes: Strings,
      rules: Type.Array(Rule),
      expiresIn: Type.Optional(Type.String()),
    }),
    matched: Type.Array(
      Type.Object({
        phrase: Type.String(),
        kind: Type.Union([Type.Literal('grant'), Type.Literal('deny'), Type.Literal('rule'), Type.Literal('expiry'), Type.Literal('waiver')]),
        produces: Strings,
      }),
    ),
    unmatched: Type.Array(Type.Object({ phrase: Type.String(), reason: Type.String() })),
    warnings: Strings,
    explanation: Type.String(),
  },
  { description: 'The scopes and policy the words give, each phrase matched or not, and why' },
);
const Providers = Type.Object(
  {
    providers: Type.Array(
      Type.Object({
        id: Type.Union([Type.Literal('anthropic'), Type.Literal('ollama'), Type.Literal('openai')]),
        name: Type.String(),
        kind: Type.Union([Type.Literal('hosted'), Type.Literal('local')]),
        configured: Type.Literal(true),
        configuredBy: Type.String(),
      }),
    ),
  },
  { description: 'The model providers configured (none are needed: generation is rule-based)' },
);

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
    app.post(
      '/ai/policy/generate',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('policy', 'generatePolicy', 'Turn a policy written in words into scopes and rules'),
          body: GenerateBody,
          response: { 200: GeneratedPolicy },
        },
      },
      async (request, reply) => {
        if (request.body.description.trim() === '') {
          return sendError(reply, { code: 'INVALID_REQUEST', message: 'body/description must contain some words' });
        }
        return reply.send(generatePolicy(request.body));
      },
    );

    app.get(
      '/ai/providers',
      {
        config: { authority: { kind: 'public' } },
        schema: { ...operation('policy', 'listPolicyProviders', 'The model providers configured'), response: { 200: Providers } },
      },
      async () => ({ providers: [...providers] }),
    );
  };
}
