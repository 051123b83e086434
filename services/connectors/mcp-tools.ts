import { Type, type TObject } from 'typebox';
import { BUILT_IN_MANIFESTS } from '../../core/connectors/index.ts';
import { attestationOf, defineTool, type McpTool } from '../../edge-mcp/index.ts';
import { ACT_TIMEOUT_MS, IdParams, VERIFY_TIMEOUT_MS } from './routes.ts';
import { connectorSubjects as subjects } from './subjects.ts';

const IdArgs = Type.Object(IdParams.properties, { additionalProperties: false });

/** An action's input schema as a tool's: MCP tools take an object, as every built-in action does. */
function objectSchemaOf(connector: string, action: string, schema: unknown): TObject {
  if ((schema as { type?: unknown }).type !== 'object') throw new Error(`connector ${connector} action ${action}: its input is not an object schema`);
  return schema as TObject;
}

/**
 * The connector service's routes as MCP tools (docs/MCP.md). Each built-in action is its own tool, as
 * it is its own route (`POST /connectors/{id}/actions/{action}`), with the action's input schema;
 * the bus request is the route's, with the caller attested as the route attests it.
 */
export function connectorTools(): McpTool[] {
  const actions = BUILT_IN_MANIFESTS.flatMap((manifest) =>
    manifest.actions.map((action) =>
      defineTool({
        name: `connector_${manifest.id}_${action.name}`,
        description: `${manifest.title}: ${action.description}. ${action.effect === 'write' ? 'Writes at the provider' : 'Reads only'}; the result holds the action's signed record.`,
        scope: 'connector:execute',
        route: `POST /connectors/${manifest.id}/actions/${action.name}`,
        output: subjects.act.reply,
        input: objectSchemaOf(manifest.id, action.name, action.input),
        run: (args, caller, bus) =>
          bus.request(
            subjects.act,
            {
              id: manifest.id,
              action: action.name,
              input: args,
              attested: attestationOf(caller),
              timestamp: new Date().toISOString(),
            },
            { timeoutMs: ACT_TIMEOUT_MS },
          ),
      }),
    ),
  );
  return [
    defineTool({
      name: 'list_connectors',
      description: `List the connectors (${BUILT_IN_MANIFESTS.map((m) => m.id).join(', ')}): whether each is configured, what it needs, and its actions with their input schemas.`,
      // GET /connectors is public; a tool call is traced in its caller's name, so it needs a caller,
      // and reading the registry is what connector:read is for (docs/MCP.md).
      scope: 'connector:read',
      route: 'GET /connectors',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.list.reply,
      input: Type.Object({}, { additionalProperties: false }),
      run: (_args, _caller, bus) => bus.request(subjects.list, {}),
    }),
    defineTool({
      name: 'verify_connector',
      description: "Check a configured connector's credentials with a read-only call to its provider; never writes.",
      scope: 'connector:read',
      route: 'POST /connectors/:id/verify',
      // The route's answer: the bus reply it sends on (the tool's outputSchema.result).
      output: subjects.verify.reply,
      input: IdArgs,
      run: (args, _caller, bus) => bus.request(subjects.verify, { id: args.id }, { timeoutMs: VERIFY_TIMEOUT_MS }),
    }),
    ...actions,
  ];
}
