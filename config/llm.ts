import type { ConfigReader } from './reader.ts';

export interface LlmConfig {
  /**
   * LLM providers that are configured (`GET /ai/providers`; called by the benchmark service, never by
   * the policy generator). Whether a key is set, never its value; the Ollama address has no secret.
   */
  readonly llm: { readonly openai: boolean; readonly anthropic: boolean; readonly ollamaHost: string | undefined };
}

export function llmConfig({ str, fail }: ConfigReader): LlmConfig {
  return {
    llm: { openai: str('OPENAI_API_KEY') !== undefined, anthropic: str('ANTHROPIC_API_KEY') !== undefined, ollamaHost: ollamaHost(str('OLLAMA_HOST'), fail) },
  };
}

/**
 * `OLLAMA_HOST` as Ollama itself reads it: `host`, `host:port` (port 11434 by default) or an
 * http(s) URL (port 80/443 by default). An address carrying credentials is refused: the configuration
 * keeps no secret of a provider, only whether it is configured.
 */
export function ollamaHost(raw: string | undefined, fail: ConfigReader['fail']): string | undefined {
  if (raw === undefined) return undefined;
  const hasScheme = raw.includes('://');
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    throw fail('OLLAMA_HOST', 'must be host, host:port or an http(s):// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('OLLAMA_HOST', 'must be an http:// or https:// address');
  if (url.username !== '' || url.password !== '') throw fail('OLLAMA_HOST', 'must not carry credentials');
  const port = url.port !== '' ? url.port : hasScheme ? (url.protocol === 'https:' ? '443' : '80') : '11434';
  return `${url.protocol}//${url.hostname}:${port}`;
}
