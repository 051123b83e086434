/**
 * The LLM providers this deployment has configured (`GET /ai/providers`). Listed for the benchmark
 * service and the dashboard; the policy generator never calls any of them. An entry says that a
 * provider is configured and by which variable, never a key, and not the address either: a public
 * route has no business publishing where internal services live.
 */

export interface LlmSettings {
  readonly openai: boolean;
  readonly anthropic: boolean;
  readonly ollamaHost: string | undefined;
}

export interface LlmProvider {
  id: 'anthropic' | 'ollama' | 'openai';
  name: string;
  kind: 'hosted' | 'local';
  configured: true;
  /** The environment variable that configured it. */
  configuredBy: string;
}

/** Configured providers, ordered by id; an empty list when none is. */
export function configuredProviders(llm: LlmSettings): LlmProvider[] {
  const providers: LlmProvider[] = [];
  if (llm.anthropic) providers.push({ id: 'anthropic', name: 'Anthropic', kind: 'hosted', configured: true, configuredBy: 'ANTHROPIC_API_KEY' });
  if (llm.ollamaHost !== undefined) providers.push({ id: 'ollama', name: 'Ollama', kind: 'local', configured: true, configuredBy: 'OLLAMA_HOST' });
  if (llm.openai) providers.push({ id: 'openai', name: 'OpenAI', kind: 'hosted', configured: true, configuredBy: 'OPENAI_API_KEY' });
  return providers;
}
