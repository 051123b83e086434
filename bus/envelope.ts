import type { TSchema } from 'typebox';
import { ErrorDataSchema, type ErrorCode, type ErrorData } from './errors.ts';
import { describeProblems } from './define.ts';
import type { Payload, PayloadForm, Result } from './types.ts';

/**
 * The wire format of the bus: JSON, in UTF-8 on a network, as a string in the process (a
 * transport's `payloads`). A request or event payload is the message itself; a reply is an envelope
 * `{ok:true,value}` or `{ok:false,error:{code,message}}`, so that errors from the catalogue travel
 * as data and never as thrown classes.
 */

const encoder = new TextEncoder();
// fatal: a payload that is not valid UTF-8 is malformed, not silently repaired.
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Throws on values JSON cannot carry (BigInt, cycles); callers turn that into an error result. As
 * `text`, the JSON string itself (JSON.stringify escapes lone surrogates, so it is well-formed).
 */
export function encodeJson(value: unknown, as: PayloadForm): Payload {
  const json = JSON.stringify(value);
  return as === 'text' ? json : encoder.encode(json);
}

export type Decoded = { ok: true; value: unknown } | { ok: false; problem: string };

/** Payloads are untrusted: malformed input is a result, never an exception. */
export function decodeJson(payload: Payload): Decoded {
  try {
    return { ok: true, value: JSON.parse(typeof payload === 'string' ? payload : decoder.decode(payload)) as unknown };
  } catch {
    return { ok: false, problem: 'payload is not valid JSON' };
  }
}

export function failure(code: ErrorCode, message: string): { ok: false; error: ErrorData } {
  return { ok: false, error: { code, message } };
}

/** What a reply envelope holds after checking, plus what was wrong when it was not acceptable. */
export interface CheckedReply {
  result: Result<unknown>;
  /** Set when the reply was replaced by INTERNAL_ERROR; for logs only, never sent on. */
  problem?: string;
}

/**
 * Checks a reply (a handler's return on the serving side, or a decoded envelope on the requesting
 * side) against the declared reply schema and the error catalogue. Anything unacceptable becomes a
 * generic INTERNAL_ERROR: the details belong in the logs of the side that found them.
 */
export function checkReply(subject: string, replySchema: TSchema, reply: unknown): CheckedReply {
  if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
    return internal(subject, 'reply is not a result envelope');
  }
  const envelope = reply as { ok: boolean; value?: unknown; error?: unknown };
  if (envelope.ok) {
    const problem = describeProblems(replySchema, envelope.value);
    if (problem !== undefined) return internal(subject, `reply value is invalid: ${problem}`);
    return { result: { ok: true, value: envelope.value } };
  }
  const problem = describeProblems(ErrorDataSchema, envelope.error);
  if (problem !== undefined) return internal(subject, `reply error is invalid: ${problem}`);
  const error = envelope.error as ErrorData;
  // Copy only the catalogue fields: anything else on the error object stays on its side.
  return { result: failure(error.code, error.message) };
}

function internal(subject: string, problem: string): CheckedReply {
  return { result: internalFailure(subject), problem };
}

/** The one message a caller sees when a service failed: what went wrong is logged, not sent. */
export function internalFailure(subject: string): { ok: false; error: ErrorData } {
  return failure('INTERNAL_ERROR', `${subject}: the service failed to answer`);
}

/** Decodes and checks the payload of a reply envelope, as `checkReply` does. */
export function checkReplyPayload(subject: string, replySchema: TSchema, payload: Payload): CheckedReply {
  const decoded = decodeJson(payload);
  if (!decoded.ok) return internal(subject, `reply ${decoded.problem}`);
  return checkReply(subject, replySchema, decoded.value);
}

/** Encodes a checked result as an envelope; the `transport` marker of a result is local only. */
export function encodeReply(result: Result<unknown>, as: PayloadForm): Payload {
  return encodeJson(result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error }, as);
}
