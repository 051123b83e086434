import type { Static, TObject, TSchema } from 'typebox';
import type { Bus, ErrorData } from '../bus/index.ts';
import type { Principal } from '../edge-http/index.ts';

/** What a tool's call came to: the bus reply, or the error the actor (or the tool) answered. */
export type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: ErrorData };

/**
 * One tool: a route of the suite as a model sees it. `scope` is the scope of the route it stands for
 * (a token lists and calls only the tools its scopes grant); `input` is the route's own TypeBox body
 * or query schema, so a tool accepts what the route accepts. `run` is one bus request, no more: the
 * edge holds no domain logic.
 */
export interface McpTool<S extends TObject = TObject> {
  readonly name: string;
  /** One line a model can act on. */
  readonly description: string;
  readonly scope: string;
  /** The route it stands for, `METHOD /path` as the route table names it (docs/ROUTES.md). */
  readonly route: string;
  readonly input: S;
  /** The route's response schema (its 200 answer): the tool's `outputSchema.result`. Absent: any JSON value. */
  readonly output?: TSchema;
  run(args: Static<S>, caller: Principal, bus: Bus): Promise<ToolOutcome>;
}

/** A tool, typed from its input schema (the list of tools is heterogeneous: `McpTool` erases it). */
export function defineTool<S extends TObject>(tool: McpTool<S>): McpTool {
  return Object.freeze(tool) as unknown as McpTool;
}
