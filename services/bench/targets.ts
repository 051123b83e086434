import type { Dispatcher } from 'undici';
import type { BenchSettings } from './config.ts';
import type { OutboundGuard } from '../../actors/outbound/index.ts';
import { SuiteError } from '../../bus/index.ts';
import { httpTarget } from './providers/http.ts';
import { anthropicTarget, ollamaTarget, openaiTarget } from './providers/llm.ts';
import { shownUrl, type Target } from './providers/types.ts';
import type { ProviderName } from './subjects.ts';
import type { JobRequest } from './store.ts';

/** Per call: long enough for a slow model's whole answer, short enough that a hung target ends. */
export const CALL_TIMEOUT_MS = { http: 60_000, llm: 300_000 } as const;

/** Where a job's calls go: its `url`, or for an LLM provider the configured base URL. */
export function targetUrlOf(provider: ProviderName, url: string | null | undefined, settings: BenchSettings): string {
  if (url !== undefined && url !== null) return url;
  switch (provider) {
    case 'openai':
      return settings.openaiBaseUrl;
    case 'anthropic':
      return settings.anthropicBaseUrl;
    case 'ollama':
      return settings.ollamaBaseUrl;
    case 'http':
      throw new SuiteError('INVALID_REQUEST', 'body/url is required for provider http');
  }
}

/** The URL rules of the outbound guard (scheme, credentials, literal addresses) as a 400. */
export function checkedUrl(guard: OutboundGuard, raw: string): URL {
  try {
    return guard.checkUrl(raw);
  } catch (err) {
    const message = err instanceof Error ? err.message : 'refused';
    throw new SuiteError('INVALID_REQUEST', `body/url: ${message}`);
  }
}

export interface TargetContext {
  guard: OutboundGuard;
  settings: BenchSettings;
}

/** Build the target of a claimed job (its URL checked again: the policy may have changed since). */
export function targetOf(provider: ProviderName, model: string | null, request: JobRequest, ctx: TargetContext): Target {
  const url = checkedUrl(ctx.guard, targetUrlOf(provider, request.url, ctx.settings));
  const dispatcher: Dispatcher = ctx.guard.dispatcher;
  switch (provider) {
    case 'http':
      return httpTarget({
        url,
        method: request.method ?? 'GET',
        headers: request.headers ?? {},
        body: request.body,
        dispatcher,
        timeoutMs: CALL_TIMEOUT_MS.http,
      });
    case 'openai':
    case 'anthropic':
    case 'ollama': {
      const options = {
        base: url,
        model: model ?? '',
        prompt: request.prompt ?? DEFAULT_PROMPT,
        maxTokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
        apiKey: keyFor(provider, url, ctx.settings),
        dispatcher,
        timeoutMs: CALL_TIMEOUT_MS.llm,
      };
      return provider === 'openai' ? openaiTarget(options) : provider === 'anthropic' ? anthropicTarget(options) : ollamaTarget(options);
    }
  }
}

export const DEFAULT_PROMPT = 'Write one sentence about the sea.';
export const DEFAULT_MAX_TOKENS = 64;

/**
 * The configured key of a provider, only for its configured base URL: a job naming its own `url`
 * (a local or compatible server) gets no key, so no caller can have the suite's key sent to them.
 */
function keyFor(provider: 'openai' | 'anthropic' | 'ollama', url: URL, settings: BenchSettings) {
  const same = (base: string) => url.toString().replace(/\/+$/, '') === base;
  if (provider === 'openai') return same(settings.openaiBaseUrl) ? settings.openaiApiKey : undefined;
  if (provider === 'anthropic') return same(settings.anthropicBaseUrl) ? settings.anthropicApiKey : undefined;
  return undefined;
}

export { shownUrl };
