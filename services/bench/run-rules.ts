import type { RunSettings } from './subjects.ts';

const HTTP_ONLY = ['method', 'headers', 'body'] as const;
const LLM_ONLY = ['prompt', 'maxTokens'] as const;

/**
 * What the schema of POST /run cannot say: fields that depend on the provider. The route checks it
 * before a unit is metered, and the `run_benchmark` MCP tool before its bus request, so both refuse
 * the same bodies with the same message.
 */
export function providerRuleBroken(body: RunSettings): string | undefined {
  if (body.provider === 'http') {
    if (body.url === undefined) return 'body/url is required for provider http';
    for (const f of LLM_ONLY) if (body[f] !== undefined) return `body/${f} applies to the LLM providers, not http`;
    return undefined;
  }
  if (body.model === undefined) return `body/model is required for provider ${body.provider}`;
  for (const f of HTTP_ONLY) if (body[f] !== undefined) return `body/${f} applies to provider http only`;
  return undefined;
}
