import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { textProblem } from '../bus/index.ts';
import { sayWhatToSend } from './validation-words.ts';

/**
 * Request validation with TypeBox's own compiler, the one the bus validates with, so a schema
 * means the same thing on both sides. Compiled once per route and part at startup.
 *
 * - Bodies are checked as sent: no coercion (Fastify's default Ajv would turn `"scope": "a:b"`
 *   into `["a:b"]`; a capability request must say what it means).
 * - Query strings, params and headers arrive as strings and are converted to the schema's types;
 *   a number among them must be spelled in plain decimal digits first (numberSpellingProblem):
 *   TypeBox's conversion reads `1.5` as 1 for an integer, `1e2` as 100, `0x1` as 1 and `` as 0.
 * - Declared `default`s are filled in (`GET /audit` limit 50), only for schemas that declare one.
 * - One error is reported, the most useful one, so the message names a single field:
 *   "body/scope must be array". (Collecting every error of a large body is work an attacker
 *   would get to choose.)
 * - Before the schema, every part meets the text rule (bus/text-rule.ts: no NUL, no lone
 *   surrogate, a length cap, bounded nesting, no prototype keys) in every string it holds, keys
 *   included: "params/subject must not contain NUL (U+0000)". Applied here once, it holds for
 *   every route, present and future, without each schema having to remember it; JSON bodies met
 *   it already in the parser (plugins/text-input.ts), bodies of other parsers meet it here.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const convert = httpPart !== 'body';
  const defaults = declaresDefault(schema, new Set());
  return (input: unknown) => {
    const problem = textProblem(input, schema);
    if (problem !== undefined) return { error: [{ keyword: 'text', instancePath: problem.path, schemaPath: '#', params: {}, message: problem.message }] };
    if (convert) {
      const spelling = numberSpellingProblem(schema, input);
      if (spelling !== undefined) return { error: [spelling] };
    }
    let value = convert ? Value.Convert(schema, input) : input;
    if (defaults) value = Value.Default(schema, value);
    if (validator.Check(value)) return { value };
    const errors = validator.Errors(value) as FastifySchemaValidationError[];
    return { error: [sayWhatToSend(mostUseful(errors), errors, schema)] };
  };
};

function declaresDefault(node: unknown, seen: Set<object>): boolean {
  if (typeof node !== 'object' || node === null || seen.has(node)) return false;
  seen.add(node);
  if (!Array.isArray(node) && Object.hasOwn(node, 'default')) return true;
  for (const child of Object.values(node)) if (declaresDefault(child, seen)) return true;
  return false;
}

/**
 * The first error, except that a failed union reports on the union rather than on its first
 * branch ("must be one of 'allow', 'deny'" instead of "must be equal to constant").
 */
function mostUseful(errors: FastifySchemaValidationError[]): FastifySchemaValidationError {
  const first = errors[0];
  if (first === undefined) return { keyword: 'type', instancePath: '', schemaPath: '#', params: {}, message: 'is invalid' };
  const union = errors.find((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && first.schemaPath.startsWith(`${e.schemaPath}/${e.keyword}/`));
  if (union === undefined) return first;
  const branches = errors.filter((e) => e.schemaPath.startsWith(`${union.schemaPath}/${union.keyword}/`));
  if (!branches.every((e) => e.keyword === 'const')) return union;
  const allowed = branches.map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
  return { ...union, message: `must be one of ${allowed.join(', ')}` };
}

const INTEGER_SPELLING = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_SPELLING = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * One rule for every number a URL or a header carries: plain decimal digits, an optional minus, no
 * leading zero, no sign `+`, exponent, hex, blank or space (and a fraction only where the schema
 * takes one). `?from=1.5` is refused, not read as 1, so that what a caller meant is never guessed.
 * Only the part's own properties are looked at: query strings, params and headers are flat.
 */
function numberSpellingProblem(schema: TSchema, input: unknown): FastifySchemaValidationError | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown; items?: { type?: unknown } }> }).properties;
  if (properties === undefined || typeof input !== 'object' || input === null) return undefined;
  for (const [key, property] of Object.entries(properties)) {
    const raw = (input as Record<string, unknown>)[key];
    const [type, values] = property.type === 'array' ? [property.items?.type, Array.isArray(raw) ? raw : [raw]] : [property.type, [raw]];
    if (type !== 'integer' && type !== 'number') continue;
    const spelling = type === 'integer' ? INTEGER_SPELLING : NUMBER_SPELLING;
    if (values.every((v) => typeof v !== 'string' || spelling.test(v))) continue;
    const what = type === 'integer' ? 'a whole number' : 'a number';
    return {
      keyword: 'type',
      instancePath: `/${key}`,
      schemaPath: `#/properties/${key}`,
      params: {},
      message: `must be ${what} in plain decimal digits (no sign +, leading zero, exponent, hex or spaces)`,
    };
  }
  return undefined;
}
