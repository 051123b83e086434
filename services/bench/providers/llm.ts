import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { Secret } from '../../../config/index.ts';
import { ndjsonReader, streamedCall, type StreamProtocol } from './stream.ts';
import { kindOfStatus, shownUrl, type ErrorKind, type Target } from './types.ts';

export interface LlmTargetOptions {
  /** The provider's base URL (checked by the outbound guard's URL rules). */
  base: URL;
  model: string;
  prompt: string;
  maxTokens: number;
  /** Sent only when `base` is the configured base URL (targets.ts): a key never goes elsewhere. */
  apiKey: Secret | undefined;
  dispatcher: Dispatcher;
  timeoutMs: number;
}

const join = (base: URL, path: string): URL => new URL(`${base.toString().replace(/\/+$/, '')}${path}`);
/**
 * The fields the stream readers look at in a provider's JSON (OpenAI, Anthropic, Ollama), all
 * optional: what arrives is untrusted, so every read goes through `?.` or a `typeof` check.
 */
interface ProviderMessage {
  type?: string;
  error?: { type?: string };
  choices?: Array<{ delta?: { content?: unknown } }>;
  usage?: { completion_tokens?: unknown; output_tokens?: unknown };
  delta?: { type?: string; text?: unknown };
  message?: { content?: unknown };
  done?: unknown;
  eval_count?: unknown;
}

const json = (text: string): ProviderMessage | undefined => {
  try {
    return JSON.parse(text) as ProviderMessage;
  } catch {
    return undefined;
  }
};

function sse(onMessage: (event: string | undefined, data: string) => void): (text: string) => void {
  const parser = createParser({ onEvent: (e) => onMessage(e.event, e.data) });
  return (text) => parser.feed(text);
}

/** OpenAI's error body `{"error": {"type", "code"}}` says more than the status (e.g. `insufficient_quota` on 429). */
const openaiProtocol: StreamProtocol = {
  reader: (sink) =>
    sse((_event, data) => {
      if (data === '[DONE]') return sink.end();
      const chunk = json(data);
      if (chunk === undefined) return sink.fail('protocol');
      if (chunk.error !== undefined) return sink.fail('stream_error');
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') sink.token();
      if (typeof chunk.usage?.completion_tokens === 'number') sink.usage(chunk.usage.completion_tokens);
    }),
  errorKind: (status) => kindOfStatus(status),
};

/** OpenAI chat completions, streamed (`stream: true`, usage in the last chunk). */
export function openaiTarget(o: LlmTargetOptions): Target {
  const url = join(o.base, '/chat/completions');
  const body = JSON.stringify({
    model: o.model,
    messages: [{ role: 'user', content: o.prompt }],
    max_tokens: o.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey.reveal()}` } : {};
  return {
    shown: shownUrl(url),
    call: (signal) => streamedCall({ url, headers, body, dispatcher: o.dispatcher, timeoutMs: o.timeoutMs, protocol: openaiProtocol }, signal),
  };
}

const ANTHROPIC_ERRORS: Record<string, ErrorKind> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limited',
  authentication_error: 'auth',
  permission_error: 'auth',
  not_found_error: 'not_found',
  invalid_request_error: 'bad_request',
  api_error: 'http_5xx',
};

const anthropicProtocol: StreamProtocol = {
  reader: (sink) =>
    sse((event, data) => {
      const message = json(data);
      if (message === undefined) return sink.fail('protocol');
      switch (event ?? message.type) {
        case 'content_block_delta':
          if (message.delta?.type === 'text_delta' && message.delta.text !== '') sink.token();
          return;
        case 'message_delta':
          if (typeof message.usage?.output_tokens === 'number') sink.usage(message.usage.output_tokens);
          return;
        case 'message_stop':
          return sink.end();
        case 'error':
          return sink.fail(ANTHROPIC_ERRORS[message.error?.type ?? ''] ?? 'stream_error');
        default:
          return; // message_start, content_block_start/stop, ping
      }
    }),
  errorKind: (status, body) => ANTHROPIC_ERRORS[json(body)?.error?.type ?? ''] ?? kindOfStatus(status),
};

/** Anthropic messages, streamed (server-sent events; output tokens in `message_delta`). */
export function anthropicTarget(o: LlmTargetOptions): Target {
  const url = join(o.base, '/v1/messages');
  const body = JSON.stringify({ model: o.model, max_tokens: o.maxTokens, messages: [{ role: 'user', content: o.prompt }], stream: true });
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', ...(o.apiKey ? { 'x-api-key': o.apiKey.reveal() } : {}) };
  return {
    shown: shownUrl(url),
    call: (signal) => streamedCall({ url, headers, body, dispatcher: o.dispatcher, timeoutMs: o.timeoutMs, protocol: anthropicProtocol }, signal),
  };
}

const ollamaProtocol: StreamProtocol = {
  reader: (sink) =>
    ndjsonReader(
      (value) => {
        const line = value as ProviderMessage | null | undefined;
        if (line?.error !== undefined) return sink.fail('stream_error');
        const content = line?.message?.content;
        if (typeof content === 'string' && content !== '') sink.token();
        if (line?.done === true) {
          if (typeof line.eval_count === 'number') sink.usage(line.eval_count);
          sink.end();
        }
      },
      () => sink.fail('protocol'),
    ),
  errorKind: (status) => kindOfStatus(status),
};

/** Ollama's chat API, streamed as NDJSON (`eval_count` in the last line). Ollama takes no key. */
export function ollamaTarget(o: LlmTargetOptions): Target {
  const url = join(o.base, '/api/chat');
  const body = JSON.stringify({ model: o.model, messages: [{ role: 'user', content: o.prompt }], stream: true, options: { num_predict: o.maxTokens } });
  return {
    shown: shownUrl(url),
    call: (signal) => streamedCall({ url, headers: {}, body, dispatcher: o.dispatcher, timeoutMs: o.timeoutMs, protocol: ollamaProtocol }, signal),
  };
}
