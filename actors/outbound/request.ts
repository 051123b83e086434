import { request } from 'undici';
import type { OutboundGuard } from './guard.ts';

export interface OutboundRequest {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborts the whole exchange (connect, headers, body) after this long. */
  readonly timeoutMs: number;
  /** Response bytes kept; the rest is read and dropped. Default 64 KiB. */
  readonly maxBodyBytes?: number;
}

export interface OutboundResponse {
  readonly status: number;
  readonly body: Buffer;
  /** Whether the body was longer than `maxBodyBytes` (the kept part is its start). */
  readonly truncated: boolean;
}

/** One outbound HTTP exchange through the guard: URL rules first, then the guarded connection. */
export async function guardedRequest(guard: OutboundGuard, req: OutboundRequest): Promise<OutboundResponse> {
  const url = guard.checkUrl(req.url);
  const max = req.maxBodyBytes ?? 64 * 1024;
  const res = await request(url, {
    dispatcher: guard.dispatcher,
    method: (req.method ?? 'GET') as 'GET',
    ...(req.headers !== undefined ? { headers: req.headers } : {}),
    ...(req.body !== undefined ? { body: req.body } : {}),
    signal: AbortSignal.timeout(req.timeoutMs),
  });
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (kept >= max) {
      truncated = true;
      continue;
    }
    const part = chunk.subarray(0, max - kept);
    if (part.length < chunk.length) truncated = true;
    chunks.push(part);
    kept += part.length;
  }
  return { status: res.statusCode, body: Buffer.concat(chunks), truncated };
}
