import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Validator } from 'typebox/compile';
import type { EventSubject, RequestSubject } from './types.ts';
import { isValidSubject } from './subject-pattern.ts';
import { textProblem } from './text-rule.ts';

/**
 * Declares a request/reply subject with the schemas of its request and of its successful reply.
 * Subjects are declared once (bus/subjects.ts); a malformed subject is a programming error, so it
 * throws at declaration time rather than on the first message.
 */
export function requestSubject<Req extends TSchema, Res extends TSchema>(subject: string, request: Req, reply: Res): RequestSubject<Req, Res> {
  assertSubject(subject);
  return Object.freeze({ kind: 'request', subject, request, reply });
}

/** Declares a publish/subscribe subject with the schema of its event. */
export function eventSubject<Ev extends TSchema>(subject: string, event: Ev): EventSubject<Ev> {
  assertSubject(subject);
  return Object.freeze({ kind: 'event', subject, event });
}

function assertSubject(subject: string): void {
  if (!isValidSubject(subject)) {
    throw new TypeError(`"${subject}" is not a valid bus subject (dot-separated tokens, no wildcards)`);
  }
}

// One compiled validator per schema object. Compiling is the expensive part (code generation), and
// schemas are long-lived module constants, so a WeakMap keyed by identity caches without leaking.
const validators = new WeakMap<TSchema, Validator>();

export function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (validator === undefined) {
    validator = Compile(schema) as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

const MAX_REPORTED_PROBLEMS = 3;

/**
 * Checks a value against a schema. Returns undefined when valid, else a short description naming
 * the offending field paths (JSON Pointer, RFC 6901). It never quotes the value itself: payloads may
 * carry secrets, and the description travels back to the caller and into logs.
 */
export function describeProblems(schema: TSchema, value: unknown): string | undefined {
  const validator = validatorFor(schema);
  if (validator.Check(value)) return undefined;
  const problems: string[] = [];
  for (const error of validator.Errors(value)) {
    if (problems.length === MAX_REPORTED_PROBLEMS) break;
    if (error.keyword === 'required') {
      // The instance path of a `required` error is the parent object; name the missing fields.
      for (const name of error.params.requiredProperties) {
        problems.push(`${error.instancePath}/${escapePointer(name)} is required`);
      }
    } else {
      problems.push(`${error.instancePath || '/'} ${error.message}`);
    }
  }
  return problems.length > 0 ? problems.slice(0, MAX_REPORTED_PROBLEMS).join('; ') : 'does not match its schema';
}

/**
 * Checks a request or an event: first the text rule (bus/text-rule.ts: no NUL, no lone surrogate,
 * a length cap, bounded nesting, no prototype keys), then the schema. The edge applies the same
 * rule to HTTP input; here it also holds for callers that are not HTTP (an MCP edge, a peer on
 * NATS), so no message carries into an actor a string its storage would choke on. Replies are
 * checked by their schema only: they come from our own actors and storage.
 */
export function describeMessageProblems(schema: TSchema, value: unknown): string | undefined {
  const text = textProblem(value, schema);
  if (text !== undefined) return `${text.path || '/'} ${text.message}`;
  return describeProblems(schema, value);
}

function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
