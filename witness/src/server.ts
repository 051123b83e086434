import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { addCheckpoint, parseAddCheckpoint, type Cosigner, type NoteVerifier } from '../../core/tlog/index.ts';
import { ADD_CHECKPOINT_SCHEMA, registerWitnessOpenApi, VKEY_SCHEMA } from './openapi.ts';
import type { WitnessState } from './state.ts';

/** tlog-witness: requests of more than 16 KiB are refused (a checkpoint, 63 proof lines and signatures fit well within). */
const BODY_LIMIT = 16 * 1024;

export interface WitnessServerOptions {
  state: WitnessState;
  cosigner: Cosigner;
  /** The cosigner's vkey (`<name>+<key ID>+<base64(0x04 || key)>`), served at GET /vkey. */
  vkey: string;
  /** The logs witnessed: origin → the log's note verifiers. */
  logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  logger: Logger;
  clock?: () => number;
}

/**
 * C2SP tlog-witness over HTTP (docs/WITNESS.md): `POST /add-checkpoint` decided by core/tlog's
 * `addCheckpoint`, one request at a time, so that the decision and the state it leaves are never
 * interleaved with another's; the new state (and any evidence) is on disk before the answer.
 * `GET /vkey` serves the witness's cosignature vkey. Everything is text, as the protocol is;
 * `GET /openapi.json` describes both (openapi.ts).
 */
export async function witnessApp(o: WitnessServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  // Before the routes: @fastify/swagger documents the routes declared after it.
  await registerWitnessOpenApi(app);
  const clock = o.clock ?? Date.now;
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  // The protocol names no content type: any body is read as text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post('/add-checkpoint', { schema: ADD_CHECKPOINT_SCHEMA }, async (req, reply) => {
    const body = typeof req.body === 'string' ? req.body : '';
    const request = parseAddCheckpoint(body);
    if (typeof request === 'string') return reply.code(400).type('text/plain; charset=utf-8').send(`${request}\n`);
    return serially(async () => {
      const decision = addCheckpoint(request, (origin) => o.state.known(origin), { logs: o.logs, cosigner: o.cosigner }, Math.floor(clock() / 1000));
      if (decision.evidence) {
        const file = await o.state.keepEvidence(decision.evidence, new Date(clock()));
        o.logger.warn(
          { origin: decision.evidence.origin, reason: decision.evidence.reason, file },
          'witness: a checkpoint contradicting one already cosigned was refused and kept as evidence',
        );
      }
      if (decision.next) await o.state.advance(decision.next.origin, decision.next.log);
      o.logger.info(
        { status: decision.status, ...(decision.next ? { origin: decision.next.origin, size: decision.next.log.size } : {}) },
        'witness: add-checkpoint',
      );
      return reply.code(decision.status).type(decision.contentType).send(decision.body);
    });
  });

  app.get('/vkey', { schema: VKEY_SCHEMA }, async (_req, reply) => reply.type('text/plain; charset=utf-8').send(`${o.vkey}\n`));

  // Framework refusals (too large, not found, bad method) in the protocol's plain text; 500s say nothing more.
  app.setNotFoundHandler((_req, reply) =>
    reply.code(404).type('text/plain; charset=utf-8').send('not found: this witness serves POST /add-checkpoint, GET /vkey and GET /openapi.json\n'),
  );
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) o.logger.error({ err }, 'witness: request failed; nothing was cosigned');
    return reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .send(status === 500 ? 'internal error: nothing was cosigned\n' : `${err.message}\n`);
  });
  return app;
}
