import { Type, type TSchema, type TUnknown } from 'typebox';

/**
 * The one rule every value from outside obeys before any of it may reach storage, applied once at
 * each boundary rather than remembered by each schema: by the HTTP edge to every JSON body, every
 * part it validates and every query string and path (edge-http/plugins/text-input.ts,
 * edge-http/validation.ts), and by the bus to every request and event it sends or receives
 * (bus/define.ts), for callers that are not HTTP. docs/ERRORS.md, "What no request may carry".
 *
 * - A string (a value or a key) holds no NUL: Postgres cannot store U+0000 in text or json, so the
 *   statement would fail, and on PGlite's single session a failing statement is expensive.
 * - A string is well-formed UTF-16 (no lone surrogate): it has no UTF-8 form, so Postgres refuses
 *   it too, and RFC 8785 cannot canonicalise it.
 * - A string is at most MAX_STRING_LENGTH UTF-16 code units: a backstop for a schema that forgot
 *   its own `maxLength` (every field the suite stores has a much tighter one).
 * - Values nest at most MAX_DEPTH deep: deeper JSON would only exhaust the stack of some recursive
 *   walk further on (canonical JSON, schema checks), and no request of ours needs it.
 * - No `__proto__` key, and no `constructor` key holding a `prototype`: JSON.parse makes them plain
 *   properties, but any later `Object.assign` or merge would set an object's prototype with them
 *   (prototype pollution). The JSON parser Fastify ships refused them too, as "not valid JSON".
 *
 * A schema may mark a subtree as hashed and dropped (`hashedJson()`: an execution's `input` and
 * `output`, which are never stored): there strings may hold NUL and be of any length (the body
 * limit bounds them); well-formedness, depth and the key rules still apply.
 */
export const MAX_STRING_LENGTH = 65_536;
export const MAX_DEPTH = 64;

/** The schema keyword marking a subtree that is hashed and dropped, never stored (see above). */
export const HASHED_KEYWORD = 'x-suite-hashed';

/** Any JSON value whose strings are hashed and dropped, never stored: exempt from the NUL and length rules. */
export function hashedJson(): TUnknown {
  return Type.Unknown({ [HASHED_KEYWORD]: true });
}

/** Where a value breaks the rule: a JSON Pointer (RFC 6901, '' for the value itself) and why. */
export interface TextProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The first place `value` breaks the rule, or undefined. `schema` (optional) only lets subtrees it
 * marks with `hashedJson()` through; where it says nothing the rule applies in full. Messages
 * never quote the value (it may be a secret, and it is what the rule refused).
 */
export function textProblem(value: unknown, schema?: TSchema): TextProblem | undefined {
  const found = walk(value, schema, 0, false);
  if (found === undefined) return undefined;
  // The path is built only for a value refused: on the way down, building one per field cost
  // more than all the checks together (an audit batch of 2,000 entries crosses the bus twice).
  const path = found.keys
    .reverse()
    .map((key) => `/${typeof key === 'number' ? key : escapePointer(key)}`)
    .join('');
  return { path, message: found.message };
}

/** A refusal on its way up: the keys from it to the root, innermost first. */
interface Found {
  keys: Array<string | number>;
  message: string;
}

function walk(value: unknown, schema: unknown, depth: number, hashed: boolean): Found | undefined {
  if (typeof value === 'string') {
    // The common case first, in line: a short, well-formed string without NUL.
    if (value.length <= MAX_STRING_LENGTH && value.isWellFormed() && !value.includes('\0')) return undefined;
    const message = stringProblem(value, hashed || isHashed(schema));
    return message === undefined ? undefined : { keys: [], message };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_DEPTH) return { keys: [], message: `must not be nested more than ${MAX_DEPTH} levels deep` };
  const inHashed = hashed || (schema !== undefined && isHashed(schema));
  const guide = inHashed ? undefined : (schema as Record<string, unknown> | undefined);
  if (Array.isArray(value)) {
    const items = guide === undefined ? undefined : childSchema(guide, 'items');
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], items, depth + 1, inHashed);
      if (found !== undefined) {
        found.keys.push(i);
        return found;
      }
    }
    return undefined;
  }
  const properties = guide === undefined ? undefined : (childSchema(guide, 'properties') as Record<string, unknown> | undefined);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const child = record[key];
    // A key the schema declares is one of our own names: only other keys need checking.
    let declared = properties === undefined ? undefined : properties[key];
    if (declared !== undefined && !Object.hasOwn(properties as object, key)) declared = undefined;
    if (declared === undefined) {
      const keyMessage = keyProblem(key, child);
      if (keyMessage !== undefined) return { keys: [], message: keyMessage };
    }
    const found = walk(child, declared, depth + 1, inHashed);
    if (found !== undefined) {
      found.keys.push(key);
      return found;
    }
  }
  return undefined;
}

function stringProblem(s: string, hashed: boolean): string | undefined {
  if (!s.isWellFormed()) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (hashed) return undefined;
  if (s.length > MAX_STRING_LENGTH) return `must not have more than ${MAX_STRING_LENGTH} characters`;
  if (s.includes('\0')) return 'must not contain NUL (U+0000)';
  return undefined;
}

function keyProblem(key: string, child: unknown): string | undefined {
  if (key === '__proto__') return 'must not have the key "__proto__" (it could set an object\'s prototype)';
  if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
    return 'must not have a "constructor" key holding "prototype" (it could alter a prototype)';
  }
  const problem = stringProblem(key, false);
  return problem === undefined ? undefined : `has a key that ${problem}`;
}

function isHashed(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>)[HASHED_KEYWORD] === true;
}

function childSchema(schema: unknown, keyword: 'items' | 'properties'): object | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const child = (schema as Record<string, unknown>)[keyword];
  return typeof child === 'object' && child !== null && !Array.isArray(child) ? child : undefined;
}

/** A key as a JSON Pointer token; a long one is shortened, so a message never echoes a huge key. */
function escapePointer(token: string): string {
  const shown = token.length > 64 ? `${clipText(token, 64)}…` : token;
  return shown.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * `text` cut to at most `max` UTF-16 code units without splitting a surrogate pair: a plain
 * `slice` can leave half of one, which no database accepts (an audit reason built from a caller's
 * text, for instance).
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
