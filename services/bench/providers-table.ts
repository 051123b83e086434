import type { BenchSettings } from './config.ts';
import type { ProviderName } from './subjects.ts';

export interface ProviderInfo {
  name: ProviderName;
  configured: boolean;
  protocol: string;
  measures: string[];
}

const LLM_MEASURES = ['ttftMs', 'interTokenLatencyMs', 'latencyMs', 'outputTokensPerSecond', 'errorsByKind'];

/**
 * GET /providers: the four providers, whether each is configured, what each measures. An LLM
 * provider is configured when it has what its API needs (a key for OpenAI and Anthropic; Ollama
 * needs none, so it counts as configured when OLLAMA_HOST is set); `http` always is. The route is
 * public: it shows no address (a base URL may name an internal gateway) and never a key.
 */
export function providersOf(settings: BenchSettings, ollamaHostSet: boolean): ProviderInfo[] {
  return [
    { name: 'ollama', configured: ollamaHostSet, protocol: 'Ollama /api/chat, streamed NDJSON', measures: LLM_MEASURES },
    {
      name: 'openai',
      configured: settings.openaiApiKey !== undefined,
      protocol: 'OpenAI chat completions, streamed server-sent events',
      measures: LLM_MEASURES,
    },
    {
      name: 'anthropic',
      configured: settings.anthropicApiKey !== undefined,
      protocol: 'Anthropic messages, streamed server-sent events',
      measures: LLM_MEASURES,
    },
    {
      name: 'http',
      configured: true,
      protocol: 'plain HTTP (method, headers, body); the whole response is read',
      measures: ['latencyMs', 'statusCodes', 'throughputPerSecond', 'errorsByKind'],
    },
  ];
}
