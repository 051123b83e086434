import fp from 'fastify-plugin';
import { PART } from './names.ts';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { SuiteError } from '../../bus/index.ts';
import { textProblem } from '../../bus/index.ts';

/**
 * The text rule (bus/text-rule.ts: no NUL, no lone surrogate, a length cap, bounded nesting, no
 * prototype keys) for what the validator does not see. The validator (validation.ts) applies it to
 * every part a route declares a schema for; this covers the rest, so that no route, present or
 * future, takes in a string the rule refuses:
 *
 * - every JSON body, parsed here in place of Fastify's parser: `JSON.parse`, then the rule over the
 *   whole body, guided by the route's body schema where it has one (execution `input` is exempt
 *   from some of it). A refusal says why: Fastify's parser answered a `__proto__` key as "body is
 *   not valid JSON", which it is. Empty and malformed bodies keep Fastify's own errors.
 * - the query string and path parameters of a route that declares no schema for them, in a
 *   preValidation hook: after the capability check (an anonymous caller still gets 401 first),
 *   before the route's own code.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function installTextInput(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: string | Buffer, done) => {
    let text: string;
    try {
      // JSON text exchanged between systems is UTF-8 (RFC 8259, section 8.1): bytes that are not
      // are refused, rather than quietly replaced with U+FFFD and taken as something else.
      text = typeof body === 'string' ? body : UTF8.decode(body);
    } catch {
      done(new SuiteError('INVALID_REQUEST', 'body is not valid UTF-8'), undefined);
      return;
    }
    if (text.length === 0) {
      done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
      return;
    }
    const problem = textProblem(value, request.routeOptions.schema?.body as TSchema | undefined);
    if (problem !== undefined) {
      done(new SuiteError('INVALID_REQUEST', `body${problem.path} ${problem.message}`), undefined);
      return;
    }
    done(null, value);
  });

  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema;
    if (schema?.querystring === undefined) refuse('querystring', request.query);
    if (schema?.params === undefined) refuse('params', request.params);
  });
}

/** The text rule on every JSON body and undeclared query or params; after tracing, whose hooks come first. */
export const textInputPlugin = fp(async (app: FastifyInstance) => installTextInput(app), { name: PART.textInput, dependencies: [PART.tracing] });

function refuse(part: string, value: unknown): void {
  const problem = textProblem(value);
  if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', `${part}${problem.path} ${problem.message}`);
}
