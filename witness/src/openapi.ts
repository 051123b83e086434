import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import witnessPackage from '../package.json' with { type: 'json' };

/**
 * The witness's OpenAPI document, made by @fastify/swagger from the schemas its routes are declared
 * with, as every listener of the suite does (edge-http/plugins/openapi.ts), served at
 * `GET /openapi.json`. The protocol is C2SP tlog-witness: every body is text, so the schemas say
 * which media types and statuses each operation has, and the texts are described in words.
 */
export async function registerWitnessOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Agent Authority Suite: witness (C2SP tlog-witness)',
        version: witnessPackage.version,
        description:
          "A witness of the suite's execution log (docs/WITNESS.md): cosigns checkpoints consistent with those it cosigned before, never a split view or a smaller tree. The protocol is https://c2sp.org/tlog-witness.",
      },
      tags: [{ name: 'witness', description: 'C2SP tlog-witness: cosigning checkpoints of the logs this witness follows.' }],
      servers: [{ url: '/', description: 'the witness (suite witness --port)' }],
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

const text = (description: string, mediaType = 'text/plain') => ({ description, content: { [mediaType]: { schema: { type: 'string' } } } });

export const ADD_CHECKPOINT_SCHEMA: FastifySchema & Record<string, unknown> = {
  operationId: 'addCheckpoint',
  summary: 'Cosign a checkpoint consistent with the last one cosigned for its log',
  tags: ['witness'],
  // Public by the protocol: anyone may ask; the log's signature on the checkpoint is what counts.
  security: [],
  consumes: ['text/plain'],
  body: {
    type: 'string',
    description: '`old <size>`, up to 63 base64 consistency proof lines, an empty line, then the signed checkpoint note (at most 16 KiB).',
  },
  response: {
    200: text('The cosignature line: `— <name> <base64(key ID || timestamp || signature)>`.'),
    400: text("A malformed body, or an old size above the checkpoint's."),
    403: text("No key of the log signed the checkpoint, or a known key's signature does not verify."),
    404: text('A log this witness does not follow.'),
    409: {
      description:
        'The old size is not the size last cosigned (the body is that size, `text/x.tlog.size`), or a different root at a size already cosigned (a split view, kept as evidence).',
      content: { 'text/x.tlog.size': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
    },
    413: text('A body over 16 KiB.'),
    422: text('The consistency proof does not verify (a fork or a wrong proof); kept as evidence.'),
  },
};

export const VKEY_SCHEMA: FastifySchema & Record<string, unknown> = {
  operationId: 'getWitnessVkey',
  summary: "The witness's cosignature verifier key",
  tags: ['witness'],
  security: [],
  response: {
    200: text('The vkey (note verifier key, type 0x04 cosignature/v1): `<name>+<key ID>+<base64(0x04 || key)>`.'),
  },
};
