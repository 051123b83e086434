import { connect } from 'node:net';
import type { RouteEntry } from '../edge-http/index.ts';
import { HASHED_KEYWORD } from '../bus/index.ts';

/**
 * Hostile requests for one route, built from what the route declares (its URL and its request
 * schemas, as the live route table has them), so a route added later is attacked the day it is
 * added. Every request carries something the suite must refuse: a NUL, a lone surrogate, a 100 KB
 * string, deep nesting, a number where a string belongs or the reverse, a `__proto__` key, a
 * control character in a path parameter, a header the HTTP parser refuses.
 */
export interface HostileRequest {
  readonly label: string;
  readonly method: string;
  /** Path and query as sent on the wire (already percent-encoded where they should be). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Sent over a raw socket: what fetch itself refuses to send (a NUL in a header, a raw control byte). */
  readonly raw?: boolean;
  /**
   * A number out of range for this field (issue 25, finding 8): the answer must be 400 with a message
   * naming it, never a 500 from Postgres ("out of range for type bigint").
   */
  readonly outOfRange?: string;
}

/** A way to present oneself: nothing, the admin key, a `*` token, a tenant key. */
export interface Credential {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
}

const LONG = 100_000;
const JSON_TYPE = { 'content-type': 'application/json' };

/** Path parameter values: percent-encoded controls and undecodable or overlong sequences. */
const PARAM_VALUES = ['%00', 'a%00b', '%01', '%1F', '%7F', '%0A', '%0D%0A', '%ED%A0%80', '%C0%80', '%FF', '%25%30%30', '%E2%80%AE', 'x'.repeat(5_000)];

/** Whole bodies, whatever the route expects. */
const BODIES: Array<[string, string | Buffer]> = [
  ['a __proto__ key', '{"__proto__":{"admin":true}}'],
  ['a nested __proto__ key', '{"a":{"b":[{"__proto__":{"admin":true}}]}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
  ['arrays nested 100,000 deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ['objects nested 10,000 deep', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
  ['a NUL string', '"a\\u0000b"'],
  ['a lone surrogate string', '"\\ud800"'],
  ['a 100 KB string', JSON.stringify('x'.repeat(LONG))],
  ['malformed JSON', '{"a":'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0x22, 0x7d])],
  ['an empty body', ''],
];

type Schema = Record<string, unknown> | undefined;

const propertiesOf = (schema: Schema): Record<string, Record<string, unknown>> =>
  (schema?.properties as Record<string, Record<string, unknown>> | undefined) ?? {};

/** Field values that must be refused, for a field of this schema. */
function fieldValues(field: Record<string, unknown>): Array<[string, string]> {
  const surrogate: [string, string] = ['a lone surrogate', '"\\udc00x"'];
  if (field[HASHED_KEYWORD] === true) return [surrogate, ['a __proto__ key inside', '{"__proto__":1}']];
  if (field.type === 'string' || field.type === undefined) {
    return [
      ['a NUL', '"a\\u0000b"'],
      surrogate,
      ['a 100 KB string', JSON.stringify('x'.repeat(LONG))],
      ['a number', '12345'],
      ['an object', '{"a":"\\u0000"}'],
    ];
  }
  // A number, boolean, array or object sent as a string, and strings nested where it has room.
  return [
    ['a number as a string', '"12345"'],
    ['a NUL inside', '["\\u0000"]'],
    ['a __proto__ key inside', '{"__proto__":{"x":1}}'],
  ];
}

/** Numbers no field of ours can serve: past Postgres's bigint (2^63) and past a double's safe integers. */
const OUT_OF_RANGE = ['99999999999999999999', '-99999999999999999999', '1e300'];
/** A number in a URL spelled other than in plain decimal digits: refused, never read as a guess (issue 31). */
const MISSPELLED = ['1e2', '0x10', '+5', '05', '%205'];

function numeric(field: Record<string, unknown>): boolean {
  return field.type === 'integer' || field.type === 'number';
}

/** The route's URL with every `:param` set to `value` (or a plain value). */
function fill(url: string, value = 'corpus'): string {
  return url.replace(/:[A-Za-z0-9_]+/g, value);
}

export function hostileRequests(route: RouteEntry, schemas: Readonly<Record<string, unknown>>, credentials: readonly Credential[]): HostileRequest[] {
  const out: HostileRequest[] = [];
  const { method, url } = route;
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const base = fill(url);
  const emptyBody = hasBody ? { body: '{}', headers: JSON_TYPE } : { headers: {} };
  const queryKeys = Object.keys(propertiesOf(schemas.querystring as Schema));
  const keys = queryKeys.length > 0 ? queryKeys : ['q'];

  for (const c of credentials) {
    const add = (label: string, r: Omit<HostileRequest, 'label' | 'method'>) =>
      out.push({ label: `${c.name}: ${label}`, method, ...r, headers: { ...c.headers, ...r.headers } });

    for (const value of url.includes(':') ? PARAM_VALUES : []) {
      add(`path parameter ${value.length > 20 ? `${value.slice(0, 10)}… (${value.length})` : value}`, { path: fill(url, value), ...emptyBody });
    }
    for (const key of keys) {
      add(`query ${key}=NUL`, { path: `${base}?${key}=a%00b`, ...emptyBody });
      add(`query ${key}=control characters and NUL`, { path: `${base}?${key}=%01%1F%00`, ...emptyBody });
    }
    // Longer than any request line Node accepts (16 KB of headers): refused before routing.
    add('query of 100 KB', { path: `${base}?${keys[0]}=${'x'.repeat(LONG)}`, ...emptyBody });
    add('query __proto__', { path: `${base}?__proto__=1`, ...emptyBody });
    // As for body fields below: the answer names the field only when nothing else is wrong first (no
    // other required query field, and a path the corpus's placeholder satisfies).
    const queryRequired = ((schemas.querystring as Schema)?.required as string[] | undefined) ?? [];
    const pathRefused = Object.values(propertiesOf(schemas.params as Schema)).some((f) => (f as { pattern?: unknown }).pattern !== undefined);
    for (const [key, field] of Object.entries(propertiesOf(schemas.querystring as Schema))) {
      if (!numeric(field)) continue;
      const alone = !pathRefused && queryRequired.every((r) => r === key);
      const misspelled = field.type === 'integer' ? [...MISSPELLED, '1.5'] : MISSPELLED;
      for (const n of [...OUT_OF_RANGE, ...misspelled])
        add(`query ${key}=${n}`, { path: `${base}?${key}=${n}`, ...emptyBody, ...(alone ? { outOfRange: key } : {}) });
    }
    if (!hasBody) continue;
    // Sent alone, so the answer names the field only where no other field is required; elsewhere the
    // missing fields are named first, and the request only has to be refused.
    const required = ((schemas.body as Schema)?.required as string[] | undefined) ?? [];
    for (const [key, field] of Object.entries(propertiesOf(schemas.body as Schema))) {
      if (!numeric(field)) continue;
      const alone = required.every((r) => r === key);
      for (const n of OUT_OF_RANGE)
        add(`body ${key}: ${n}`, { path: base, headers: JSON_TYPE, body: `{${JSON.stringify(key)}:${n}}`, ...(alone ? { outOfRange: key } : {}) });
    }
    for (const [label, body] of BODIES) add(`body: ${label}`, { path: base, headers: JSON_TYPE, body });
    add('body as text/plain', { path: base, headers: { 'content-type': 'text/plain' }, body: 'a\u0000b' });
    for (const [name, field] of Object.entries(propertiesOf(schemas.body as Schema))) {
      for (const [label, json] of fieldValues(field))
        add(`body ${name}: ${label}`, { path: base, headers: JSON_TYPE, body: `{${JSON.stringify(name)}:${json}}` });
    }
  }
  // What the HTTP parser must refuse before any route code: over a raw socket, once per route.
  const admin = credentials.find((c) => c.name === 'admin')?.headers ?? {};
  const raw = (label: string, path: string, headers: Record<string, string>) =>
    out.push({ label: `raw: ${label}`, method, path, headers: { ...admin, ...headers }, ...(hasBody ? { body: '{}' } : {}), raw: true });
  raw('a NUL in a header', base, { 'x-suite-tenant-key': 'a\u0000b', ...(hasBody ? JSON_TYPE : {}) });
  raw('a control byte in a header', base, { 'idempotency-key': 'a\u0001b', ...(hasBody ? JSON_TYPE : {}) });
  raw('a 100 KB header', base, { 'x-corpus': 'x'.repeat(LONG), ...(hasBody ? JSON_TYPE : {}) });
  if (url.includes(':')) raw('a raw NUL byte in the path', fill(url, 'a\u0000b'), hasBody ? JSON_TYPE : {});
  if (route.authority.kind !== 'public')
    raw('a tenant key of bytes 0x80-0xFF', base, { 'x-suite-tenant-key': '\u00e9\u00ff\u0080', ...(hasBody ? JSON_TYPE : {}) });
  return out;
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Send one request; raw ones over a socket, byte for byte (latin1), the rest with fetch. */
export async function send(origin: URL, r: HostileRequest, timeoutMs = 10_000): Promise<Answer> {
  if (r.raw === true) return sendRaw(origin, r, timeoutMs);
  const res = await fetch(new URL(r.path, origin), {
    method: r.method,
    headers: r.headers,
    signal: AbortSignal.timeout(timeoutMs),
    ...(r.body !== undefined ? { body: typeof r.body === 'string' ? r.body : new Uint8Array(r.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: parse(text) };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The body of a chunked answer (sizes in hex, each chunk followed by CRLF, a zero-size chunk last). */
function dechunk(payload: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = payload.indexOf('\r\n', at);
    const size = Number.parseInt(payload.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += payload.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

function sendRaw(origin: URL, r: HostileRequest, timeoutMs: number): Promise<Answer> {
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `host: ${origin.host}`, 'connection: close', `content-length: ${body.length}`];
  for (const [k, v] of Object.entries(r.headers)) lines.push(`${k}: ${v}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(origin.port), origin.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    // Written, not ended: a half-closed connection may be dropped before a slow answer is sent.
    // `connection: close` makes the server close it once it has answered.
    socket.on('connect', () => socket.write(Buffer.concat([head, body])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const payload = text.slice(split + 4);
      resolve({ status, body: parse(/^transfer-encoding: *chunked/im.test(head) ? dechunk(payload) : payload) });
    });
  });
}
