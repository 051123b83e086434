import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { SuiteError } from '../../bus/errors.ts';
import { textProblem } from '../../bus/text-rule.ts';

/**
 * The JSON body parser of every route (in place of Fastify's): `JSON.parse`, then the text rule
 * (bus/text-rule.ts) over the whole body, guided by the route's body schema where it has one. So
 * every JSON body meets the rule, routes without a body schema included, and a refusal says why:
 * Fastify's parser answered a `__proto__` key as "body is not valid JSON", which it is.
 * Empty and malformed bodies keep Fastify's own errors (plugins/errors.ts words them).
 */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
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
}
