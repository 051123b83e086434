import { Type } from 'typebox';
import type { Bus } from '../../bus/index.ts';
import { BUILT_IN_MANIFESTS, generateConnector, MAX_PROMPT_LENGTH } from '../../core/connectors/index.ts';
import { sendError, sendResult, type EdgeRoutes } from '../../edge-http/index.ts';
import { answer, errorsOf, operation } from '../../edge-http/index.ts';
import { connectorSubjects } from './subjects.ts';

const GenerateBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: MAX_PROMPT_LENGTH, description: 'What the connector should do, in words; a base URL may be included' }),
  },
  { additionalProperties: false },
);
/** A connector's id in the path (its MCP tools take the same field). */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ActionParams = Type.Object({ id: Type.String({ maxLength: 64 }), action: Type.String({ maxLength: 64 }) });

const Generated = Type.Object(
  {
    manifest: Type.String({ description: 'The connector manifest (YAML)' }),
    typescript: Type.String({ description: "The connector's source" }),
    spec: Type.Record(Type.String(), Type.Unknown(), { description: 'What the prompt was read as' }),
  },
  { description: 'The generated connector: the same prompt always gives the same output' },
);

/** `github` + `list_issues` → `githubListIssues`: an action route's operationId. */
const camel = (...words: string[]) =>
  words
    .join('_')
    .split(/[-_]/)
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');

/** A provider call may take the connector's own timeout (up to 120 s) plus the trace's append. */
export const ACT_TIMEOUT_MS = 150_000;
export const VERIFY_TIMEOUT_MS = 60_000;

/**
 * The connector listener (8084): the registry and POST /generate (public), verify (`connector:read`) and
 * actions (`connector:execute`). Each built-in action has its own route, whose body schema is the
 * action's input schema (so it is validated as sent, named in the error, and listed in the OpenAPI
 * document); any other `/connectors/{id}/actions/{action}` is a 404.
 */
export function connectorRoutes(bus: Bus): EdgeRoutes {
  return async (app) => {
    app.get(
      '/connectors',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('connectors', 'listConnectors', "The connector registry, with each connector's configuration state"),
          response: { 200: answer(connectorSubjects.list.reply, 'Every connector: what it needs, whether it is configured, its actions'), ...errorsOf(503) },
        },
      },
      async (_request, reply) => sendResult(reply, await bus.request(connectorSubjects.list, {})),
    );

    app.get(
      '/connectors/:id',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('connectors', 'getConnector', 'One connector: what it needs and offers'),
          params: IdParams,
          response: { 200: answer(connectorSubjects.get.reply, "The connector (never a secret's value)"), ...errorsOf(404, 503) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(connectorSubjects.get, { id: request.params.id })),
    );

    app.post(
      '/connectors/:id/verify',
      {
        config: { authority: { kind: 'scope', scope: 'connector:read' } },
        schema: {
          ...operation('connectors', 'verifyConnector', "Check a connector's credentials with a read-only call"),
          params: IdParams,
          response: { 200: answer(connectorSubjects.verify.reply, 'The credentials are valid'), ...errorsOf(404) },
        },
      },
      async (request, reply) => sendResult(reply, await bus.request(connectorSubjects.verify, { id: request.params.id }, { timeoutMs: VERIFY_TIMEOUT_MS })),
    );

    for (const manifest of BUILT_IN_MANIFESTS) {
      for (const action of manifest.actions) {
        app.post(
          `/connectors/${manifest.id}/actions/${action.name}`,
          {
            config: { authority: { kind: 'scope', scope: 'connector:execute' } },
            schema: {
              ...operation('connectors', camel(manifest.id, action.name), action.description),
              body: action.input,
              response: {
                200: answer(connectorSubjects.act.reply, "The provider's answer and the signed execution record of the call"),
                ...errorsOf(422, 502),
              },
            },
          },
          async (request, reply) => {
            const p = request.principal;
            return sendResult(
              reply,
              await bus.request(
                connectorSubjects.act,
                {
                  id: manifest.id,
                  action: action.name,
                  input: request.body,
                  attested: { jti: p.jti ?? null, sub: p.sub ?? 'anonymous', scope: [...p.scope], proven: p.proven === true, tenantId: p.tenantId ?? null },
                  timestamp: new Date().toISOString(),
                },
                { timeoutMs: ACT_TIMEOUT_MS },
              ),
            );
          },
        );
      }
    }

    // Pure and fast (core/connectors): run by the edge itself, like the policy generator.
    app.post(
      '/generate',
      {
        config: { authority: { kind: 'public' } },
        schema: {
          ...operation('connectors', 'generateConnector', 'Scaffold a connector from words, deterministically'),
          body: GenerateBody,
          response: { 200: Generated },
        },
      },
      async (request, reply) => {
        const generated = generateConnector(request.body.prompt);
        if (!generated.ok) return sendError(reply, { code: 'INVALID_REQUEST', message: generated.message });
        return reply.code(200).send(generated.value);
      },
    );

    app.post(
      '/connectors/:id/actions/:action',
      {
        config: { authority: { kind: 'scope', scope: 'connector:execute' } },
        schema: {
          ...operation('connectors', 'runUnknownConnectorAction', 'Any other connector action: 404, naming where the actions are listed'),
          params: ActionParams,
          response: errorsOf(404),
        },
      },
      async (request, reply) => {
        const { id, action } = request.params;
        const known = BUILT_IN_MANIFESTS.some((m) => m.id === id);
        return sendError(reply, {
          code: 'NOT_FOUND',
          message: known
            ? `the ${id} connector has no action "${action}"; GET /connectors/${id} lists its actions`
            : `no connector with id "${id}"; GET /connectors lists them`,
        });
      },
    );
  };
}
