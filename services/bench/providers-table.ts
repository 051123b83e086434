import type { BenchSettings } from '../../config/index.ts';
import type { ProviderName } from './subjects.ts';

export interface ProviderInfo {
  name: ProviderName;
  configured: boolean;
  /** Where calls go unless a job names its own `url` (no secret: keys are never shown). */
  baseUrl: string | null;
  protocol: string;
  measures: string[];
}

const LLM_MEASURES = ['ttftMs', 'interTokenLatencyMs', 'latencyMs', 'outputTokensPerSecond', 'errorsByKind'];

/**
 * GET /providers: the four providers, whether each is configured, what each measures. An LLM
 * provider is configured when it has what its API needs (a key for OpenAI and Anthropic; Ollama
 * needs none, so it counts as configured when OLLAMA_HOST is set); `http` always is.
 */
export function providersOf(settings: BenchSettings, ollamaHostSet: boolean): ProviderInfo[] {
  return [
    { name: 'ollama', configured: ollamaHostSet, baseUrl: settings.ollamaBaseUrl, protocol: 'Ollama /api/chat, streamed NDJSON', measures: LLM_MEASURES },
    { name: 'openai', configured: settings.openaiApiKey !== undefined, baseUrl: settings.openaiBaseUrl, protocol: 'OpenAI chat completions, streamed server-sent events', measures: LLM_MEASURES },
    { name: 'anthropic', configured: settings.anthropicApiKey !== undefined, baseUrl: settings.anthropicBaseUrl, protocol: 'Anthropic messages, streamed server-sent events', measures: LLM_MEASURES },
    { name: 'http', configured: true, baseUrl: null, protocol: 'plain HTTP (method, headers, body); the whole response is read', measures: ['latencyMs', 'statusCodes', 'throughputPerSecond', 'errorsByKind'] },
  ];
}
