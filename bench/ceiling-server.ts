/**
 * The least an append server can do and still keep what issue 3 asks of `POST /executions`, for
 * bench/append-ceiling.ts to set beside the suite: the same body validated the same way, the cost
 * rules, input and output hashed (RFC 8785, SHA-256) and dropped, each record hashed, chained and
 * signed with Ed25519 on the signing thread, group-committed by the suite's own chain writer into
 * the suite's own tables (fenced head, every index), and, unless CEILING_AUDIT=0, one audit entry
 * per allowed request in the audit chain, as the capability check records it. Each caller is
 * answered after its record committed.
 *
 * Everything else the suite does is left out: the bus and its validation on both sides, the
 * actors, the token check (here one string comparison, as a cached token costs little more),
 * revocation, tenancy, the rate limiter, metrics, trace context, the access log, idempotency keys,
 * the `appended` event. It is a measuring instrument, not a product: never run it for anything else.
 *
 *   CEILING_DATABASE_URL=postgres://... CEILING_TOKEN=... [CEILING_AUDIT=0] node bench/ceiling-server.ts
 *
 * Prints `ceiling http://127.0.0.1:PORT` once it serves; SIGTERM commits what is queued and exits.
 */
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditChainSpec } from '../actors/audit/chain-spec.ts';
import { createThreadedTraceSigner } from '../actors/chain/index.ts';
import { ChainWriter } from '../actors/chain-writer/index.ts';
import { executionChainSpec, newExecutionId } from '../services/spine/executions/chain-spec.ts';
import { ExecutionBody, executionClaim } from '../bus/index.ts';
import { validatorCompiler } from '../edge-http/validation.ts';
import { openStorage } from '../storage/index.ts';

const url = process.env.CEILING_DATABASE_URL;
const token = process.env.CEILING_TOKEN;
if (!url || !token) throw new Error('CEILING_DATABASE_URL and CEILING_TOKEN are required');
const withAudit = process.env.CEILING_AUDIT !== '0';

const storage = await openStorage({ databaseUrl: url });
const signer = createThreadedTraceSigner(undefined);
const executions = new ChainWriter({ storage, spec: executionChainSpec(signer), holder: `ceiling-${process.pid}` });
const audit = new ChainWriter({ storage, spec: auditChainSpec, holder: `ceiling-${process.pid}` });
await executions.start();
await audit.start();
if (!executions.isLeader || !audit.isLeader) throw new Error('the ceiling server must be the only writer of its database');

const bearer = `Bearer ${token}`;
const attested = { jti: 'ceiling', sub: 'bench-agent', scope: ['execution:record'], proven: false, tenantId: null };
let auditSeq = 0;
const auditIdPrefix = `aud_ceiling${process.pid}x`;

const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.post('/executions', { schema: { body: ExecutionBody } }, async (request, reply) => {
  if (request.headers.authorization !== bearer) return reply.code(401).send({ error: { code: 'UNAUTHORIZED', message: 'bad token' } });
  const made = executionClaim(request.body);
  if (!made.ok) return reply.code(400).send({ error: { code: 'INVALID_REQUEST', message: made.message } });
  const timestamp = new Date().toISOString();
  if (withAudit) {
    // As the capability check records an allow: queued, not waited for.
    void audit
      .append([
        {
          id: `${auditIdPrefix}${++auditSeq}`,
          timestamp,
          subject: attested.sub,
          action: 'execution:record',
          resource: 'POST /executions',
          result: 'allow',
          reason: '',
          tenantId: null,
        },
      ])
      .catch(() => undefined);
  }
  const [record] = await executions.append([
    {
      id: newExecutionId(),
      timestamp,
      idempotencyKey: null,
      attested,
      claim: made.claim,
    },
  ]);
  const { idempotencyKey: _unsigned, canonical: _stored, ...answer } = record as NonNullable<typeof record>;
  return reply.code(201).send(answer);
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`ceiling ${address}\n`);
process.once('SIGTERM', () => {
  void (async () => {
    await app.close();
    await executions.stop();
    await audit.stop();
    await signer.close();
    await storage.close();
    process.exit(0);
  })();
});
