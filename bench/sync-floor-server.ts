/**
 * The floor of a durable answer as a client sees it (bench/sequential-syncs.ts): a bare Fastify app
 * (default options, no logger) whose `POST /sync` appends 1 KB to a file in the folder given as its
 * argument, fdatasyncs it, and answers 201 with a record-sized JSON body; `POST /plain` answers the
 * same body at once. Whatever the suite adds to one append is what its latency has beyond `/sync`.
 * Prints `listening <port>` once it accepts connections; stops on SIGTERM.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';

const folder = process.argv[2];
if (folder === undefined) throw new Error('usage: sync-floor-server.ts <folder>');
const file = await open(join(folder, 'sync-floor'), 'a');
const line = Buffer.alloc(1024, 'x');
// The shape and size of an execution record as POST /executions answers it (~900 bytes).
const record = {
  seq: 1,
  id: `exec_${'a'.repeat(32)}`,
  timestamp: new Date().toISOString(),
  subject: 'sequential-agent',
  scope: ['crm:write'],
  module: 'crm',
  action: 'update-contact',
  outcome: 'success',
  inputHash: 'a'.repeat(64),
  outputHash: 'b'.repeat(64),
  cost: null,
  governance: null,
  attested: { jti: 'j'.repeat(22), sub: 'sequential-agent', scope: ['execution:record'], proven: false, tenantId: null },
  prevHash: 'c'.repeat(64),
  keyId: `ed25519-${'d'.repeat(16)}`,
  hash: 'e'.repeat(64),
  signature: `${'f'.repeat(86)}==`,
};

const app = Fastify();
app.post('/plain', async (_request, reply) => reply.code(201).send(record));
app.post('/sync', async (_request, reply) => {
  await file.write(line);
  await file.datasync();
  return reply.code(201).send(record);
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
process.once('SIGTERM', () => void app.close().then(() => file.close()));
