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
 * - Query strings, params and headers arrive as strings and are converted to the schema's types.
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
  const union = errors.find(
    (e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && first.schemaPath.startsWith(`${e.schemaPath}/${e.keyword}/`),
  );
  if (union === undefined) return first;
  const branches = errors.filter((e) => e.schemaPath.startsWith(`${union.schemaPath}/${union.keyword}/`));
  if (!branches.every((e) => e.keyword === 'const')) return union;
  const allowed = branches.map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
  return { ...union, message: `must be one of ${allowed.join(', ')}` };
}
