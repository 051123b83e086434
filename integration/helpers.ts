import { afterEach } from 'vitest';
import type { ActorRole } from '../cli/roles.ts';

/** Shared by the multi-process tests: plain HTTP calls, polling with a deadline, failure output. */

export const ACTORS: readonly ActorRole[] = ['actor:chain-writer', 'actor:audit', 'actor:executions', 'actor:revocation', 'actor:tokens'];

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** The error code of an error body (`{error:{code,message}}`), if it is one. */
  readonly code: string | undefined;
}

export interface CallOptions {
  method?: string;
  token?: string;
  adminKey?: string;
  body?: unknown;
  /** Further request headers (e.g. `idempotency-key`). */
  headers?: Readonly<Record<string, string>>;
  /** An answer slower than this is a failure ("hangs"), default 5000 ms. */
  timeoutMs?: number;
}

export async function call(url: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.adminKey !== undefined) headers['x-suite-admin-key'] = o.adminKey;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, code: errorCode(body) };
}

/** The code of a body of the spec's error shape, else undefined. */
export function errorCode(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string' ? error.code : undefined;
}

export interface Minted {
  token: string;
  jti: string;
  exp: number;
}

export async function mint(tokenEdge: string, adminKey: string, sub: string, scope: string[]): Promise<Minted> {
  const a = await call(`${tokenEdge}/auth/token`, { adminKey, body: { sub, scope } });
  if (a.status !== 200) throw new Error(`minting a token failed: ${a.status} ${JSON.stringify(a.body)}`);
  return a.body as Minted;
}

/**
 * Poll until `check` returns true; resolves with the milliseconds taken from `since`. Rejects with
 * `what` and the last observation after `timeoutMs`.
 */
export async function pollUntil(
  what: string,
  check: () => Promise<boolean | { done: boolean; seen: unknown }>,
  o: { timeoutMs: number; intervalMs?: number; since?: number },
): Promise<number> {
  const since = o.since ?? performance.now();
  const deadline = since + o.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const r = await check();
      const done = typeof r === 'boolean' ? r : r.done;
      last = typeof r === 'boolean' ? r : r.seen;
      if (done) return Math.round(performance.now() - since);
    } catch (err) {
      last = err instanceof Error ? `${err.name}: ${err.message}` : err;
    }
    if (performance.now() >= deadline) {
      throw new Error(`${what}: not within ${o.timeoutMs} ms; last seen ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 20));
  }
}

/** Print what the processes said when a test of this file fails (their logs are in memory). */
export function printOutputOnFailure(output: () => string): void {
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') {
      process.stderr.write(`\n----- output of the suite processes (${ctx.task.name}) -----\n${output()}\n-----\n`);
    }
  });
}
