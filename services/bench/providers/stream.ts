import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { failedCall, type CallResult, type ErrorKind } from './types.ts';

/** What a protocol's parser reports while a streamed answer arrives. */
export interface StreamSink {
  /** A piece of generated text arrived (one streamed delta). */
  token(): void;
  /** The provider's own count of generated tokens (usage fields), when it gives one. */
  usage(outputTokens: number): void;
  /** The provider signalled the end of a complete answer. */
  end(): void;
  /** The provider reported an error inside the stream. */
  fail(kind: ErrorKind): void;
}

/** A protocol: how to read its stream (text chunks in, sink calls out) and its error bodies. */
export interface StreamProtocol {
  /** Feed decoded text as it arrives. */
  reader(sink: StreamSink): (text: string) => void;
  /** The kind of an error answer (status and body): providers say more than the status does. */
  errorKind(status: number, body: string): ErrorKind;
}

export interface StreamCall {
  url: URL;
  headers: Record<string, string>;
  body: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  protocol: StreamProtocol;
}

/**
 * One streamed call: latency to the end of the stream, time to the first token, the gaps between
 * tokens (as the client saw them arrive), and the tokens generated (the provider's usage count,
 * else the deltas counted). An answer that ends without the provider's end signal is a `protocol`
 * error: a truncated answer is not a fast one.
 */
export async function streamedCall(c: StreamCall, signal: AbortSignal): Promise<CallResult> {
  const start = performance.now();
  try {
    const res = await request(c.url, {
      dispatcher: c.dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...c.headers },
      body: c.body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(c.timeoutMs)]),
    });
    if (res.statusCode >= 400) {
      const text = (await res.body.text()).slice(0, 4096);
      return { latencyMs: performance.now() - start, ok: false, status: res.statusCode, errorKind: c.protocol.errorKind(res.statusCode, text) };
    }
    let first: number | undefined;
    let last = 0;
    let deltas = 0;
    let usage: number | undefined;
    let ended = false;
    let failure: ErrorKind | undefined;
    const gaps: number[] = [];
    const feed = c.protocol.reader({
      token() {
        const now = performance.now();
        if (first === undefined) first = now - start;
        else gaps.push(now - last);
        last = now;
        deltas += 1;
      },
      usage(n) {
        usage = n;
      },
      end() {
        ended = true;
      },
      fail(kind) {
        failure ??= kind;
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Buffer>) feed(decoder.decode(chunk, { stream: true }));
    feed(decoder.decode());
    const latencyMs = performance.now() - start;
    if (failure !== undefined) return { latencyMs, ok: false, status: res.statusCode, errorKind: failure };
    if (!ended) return { latencyMs, ok: false, status: res.statusCode, errorKind: 'protocol' };
    return {
      latencyMs,
      ok: true,
      status: res.statusCode,
      gapsMs: gaps,
      outputTokens: usage ?? deltas,
      ...(first !== undefined ? { ttftMs: first } : {}),
    };
  } catch (err) {
    return failedCall(start, performance.now(), err);
  }
}

/** Split NDJSON as it arrives: complete lines parsed, the partial last line kept for the next chunk. */
export function ndjsonReader(onObject: (value: unknown) => void, onBad: () => void): (text: string) => void {
  let buffer = '';
  return (text) => {
    buffer += text;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line === '') continue;
      try {
        onObject(JSON.parse(line));
      } catch {
        onBad();
      }
    }
  };
}
