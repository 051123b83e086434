import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * Local servers speaking the streaming APIs of OpenAI (chat completions, server-sent events),
 * Anthropic (messages, server-sent events) and Ollama (chat, NDJSON), as their documentation shows
 * them: the same events in the same order, usage fields, and each one's error bodies. Told to wait
 * `ttftMs` before the first token and `itlMs` between tokens, so a test knows what a benchmark of
 * them must measure. Test-only.
 */
export interface FakeOptions {
  ttftMs?: number;
  itlMs?: number;
  tokens?: number;
  /** The key the fake requires (OpenAI bearer, Anthropic x-api-key); undefined = none required. */
  apiKey?: string;
  /** Stop the stream after this many tokens: with the provider's error event, or cut (no end signal). */
  breakAfter?: { tokens: number; how: 'error' | 'cut' };
  /** Answer every call with this status and the provider's error body. */
  status?: number;
}

export interface FakeServer {
  /** The base URL a provider is configured with (OpenAI's ends in /v1). */
  readonly base: string;
  readonly requests: Array<{ path: string; headers: IncomingMessage['headers']; body: any }>;
  /**
   * How each streamed answer was really paced, from the request's arrival (timers fire late on a
   * busy machine, so `ttftMs` and `itlMs` are floors): time to the first token's write, and the gaps
   * between token writes.
   */
  readonly pacing: Array<{ ttftMs: number; gapsMs: number[] }>;
  close(): Promise<void>;
}

type Handler = (
  req: IncomingMessage,
  body: any,
  res: ServerResponse,
  o: Required<Pick<FakeOptions, 'ttftMs' | 'itlMs' | 'tokens'>> & FakeOptions & { pace: Pace },
) => void;
interface Pace {
  arrived: number;
  record: { ttftMs: number; gapsMs: number[] };
}

async function startFake(o: FakeOptions, path: string, basePath: string, handle: Handler): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const pacing: FakeServer['pacing'] = [];
  const server = createServer((req, res) => {
    const pace: Pace = { arrived: performance.now(), record: { ttftMs: NaN, gapsMs: [] } };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== path) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
        return;
      }
      pacing.push(pace.record);
      handle(req, body, res, { ttftMs: 50, itlMs: 10, tokens: 5, ...o, pace });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}${basePath}`,
    requests,
    pacing,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Write `parts` one by one: the first after `ttftMs`, the next ones `itlMs` apart. */
function paced(res: ServerResponse, o: { ttftMs: number; itlMs: number; pace: Pace }, parts: string[], after: () => void): void {
  let i = 0;
  let last = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i === parts.length) return after();
    const now = performance.now();
    if (i === 0) o.pace.record.ttftMs = now - o.pace.arrived;
    else o.pace.record.gapsMs.push(now - last);
    last = now;
    res.write(parts[i++]);
    setTimeout(next, o.itlMs);
  };
  setTimeout(next, o.ttftMs);
}

const words = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 'The' : ` w${i}`));
const sseData = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const sseEvent = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function startOpenAiFake(o: FakeOptions = {}): Promise<FakeServer> {
  const openaiError = (res: ServerResponse, status: number, type: string, code: string | null, message: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type, param: null, code } }));
  return startFake(o, '/v1/chat/completions', '/v1', (req, body, res, opt) => {
    if (opt.apiKey !== undefined && req.headers.authorization !== `Bearer ${opt.apiKey}`) {
      return openaiError(res, 401, 'invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.');
    }
    if (opt.status === 429) return openaiError(res, 429, 'requests', 'rate_limit_exceeded', 'Rate limit reached.');
    if (opt.status !== undefined) return openaiError(res, opt.status, 'server_error', null, 'The server had an error.');
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0 || body.stream !== true) {
      return openaiError(res, 400, 'invalid_request_error', null, 'model, messages and stream are required.');
    }
    const id = 'chatcmpl-fake';
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: unknown, finish: string | null) =>
      sseData({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // The role arrives at once with empty content: time to first token is to the first text, not the first byte.
    res.write(chunk({ role: 'assistant', content: '', refusal: null }, null));
    const tokens = words(opt.tokens).map((w) => chunk({ content: w }, null));
    const broken = opt.breakAfter;
    const parts = broken ? tokens.slice(0, broken.tokens) : tokens;
    paced(res, opt, parts, () => {
      if (broken?.how === 'error') res.write(sseData({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } }));
      if (broken) return res.end();
      res.write(chunk({}, 'stop'));
      if (body.stream_options?.include_usage) {
        res.write(
          sseData({
            id,
            object: 'chat.completion.chunk',
            created,
            model: body.model,
            choices: [],
            usage: { prompt_tokens: 12, completion_tokens: opt.tokens, total_tokens: 12 + opt.tokens },
          }),
        );
      }
      res.end('data: [DONE]\n\n');
    });
  });
}

export function startAnthropicFake(o: FakeOptions = {}): Promise<FakeServer> {
  const anthropicError = (res: ServerResponse, status: number, type: string, message: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type, message } }));
  return startFake(o, '/v1/messages', '', (req, body, res, opt) => {
    if (opt.apiKey !== undefined && req.headers['x-api-key'] !== opt.apiKey) return anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
    if (req.headers['anthropic-version'] === undefined) return anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (opt.status === 529) return anthropicError(res, 529, 'overloaded_error', 'Overloaded');
    if (opt.status !== undefined) return anthropicError(res, opt.status, 'api_error', 'Internal server error');
    if (typeof body?.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
      return anthropicError(res, 400, 'invalid_request_error', 'model, max_tokens and messages are required');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(
      sseEvent('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          content: [],
          model: body.model,
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      }),
    );
    res.write(sseEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    res.write(sseEvent('ping', { type: 'ping' }));
    const tokens = words(opt.tokens).map((w) =>
      sseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } }),
    );
    const broken = opt.breakAfter;
    paced(res, opt, broken ? tokens.slice(0, broken.tokens) : tokens, () => {
      if (broken?.how === 'error') res.write(sseEvent('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      if (broken) return res.end();
      res.write(sseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }));
      res.write(
        sseEvent('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: opt.tokens } }),
      );
      res.end(sseEvent('message_stop', { type: 'message_stop' }));
    });
  });
}

export function startOllamaFake(o: FakeOptions & { models?: string[] } = {}): Promise<FakeServer> {
  const models = o.models ?? ['llama3.2'];
  return startFake(o, '/api/chat', '', (_req, body, res, opt) => {
    const error = (status: number, message: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
    if (opt.status !== undefined) return error(opt.status, 'an error was encountered while running the model');
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages)) return error(400, 'model is required');
    if (!models.includes(body.model)) return error(404, `model "${body.model}" not found, try pulling it first`);
    const at = () => new Date().toISOString();
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = (content: string) => `${JSON.stringify({ model: body.model, created_at: at(), message: { role: 'assistant', content }, done: false })}\n`;
    const tokens = words(opt.tokens).map(line);
    const broken = opt.breakAfter;
    paced(res, opt, broken ? tokens.slice(0, broken.tokens) : tokens, () => {
      if (broken?.how === 'error') res.write(`${JSON.stringify({ error: 'an error was encountered while running the model: unexpected EOF' })}\n`);
      if (broken) return res.end();
      res.end(
        `${JSON.stringify({
          model: body.model,
          created_at: at(),
          message: { role: 'assistant', content: '' },
          done_reason: 'stop',
          done: true,
          total_duration: 1,
          load_duration: 1,
          prompt_eval_count: 12,
          prompt_eval_duration: 1,
          eval_count: opt.tokens,
          eval_duration: 1,
        })}\n`,
      );
    });
  });
}
