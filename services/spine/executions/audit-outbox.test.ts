import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { createBus, createMemoryNetwork, executionClaim, subjects, type AuditInput, type Bus } from '../../../bus/index.ts';
import { findAuditIds, openStorage, type Storage } from '../../../storage/index.ts';
import { createTraceSigner } from '../../../core/chain/index.ts';
import { executionBody } from '../../../testing/executions.ts';
import { ExecutionWriterActor } from './writer-actor.ts';
import { AuditWriterActor, verifyAuditChain } from '../../../actors/audit/index.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/**
 * The audit outbox (issue 34, item 1): an append carrying its decision's audit entry commits the
 * entry with the record; the audit chain's leader appends the entries no edge sent (the edge died
 * between the commit and the send) and deletes the rows of those it has. Real storage (PGlite),
 * both chain writers on a memory bus; the sweep takes rows of any age here.
 */
const entry = (id: string): AuditInput => ({
  id,
  timestamp: new Date().toISOString(),
  subject: 'outbox-agent',
  action: 'execution:record',
  resource: 'token POST /executions',
  result: 'allow',
  reason: 'granted',
  tenantId: null,
});

describe('the audit outbox', () => {
  let storage: Storage;
  let bus: Bus;
  let executions: ExecutionWriterActor;
  let audit: AuditWriterActor;
  beforeAll(async () => {
    storage = await openStorage({});
    bus = createBus(createMemoryNetwork().connect());
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    executions = new ExecutionWriterActor({ bus, storage, signer: createTraceSigner(pem), holder: 'outbox-test' });
    await executions.start();
    audit = new AuditWriterActor({ bus, storage, holder: 'outbox-test', outboxSweepMs: 20, outboxAgeMs: 0 });
    await audit.start();
  }, machineTimeout(60_000));
  afterAll(async () => {
    await audit?.stop();
    await executions?.stop();
    await bus?.drain();
    await storage?.close();
  });

  const outboxRows = async () => Number(await storage.pool.oneFirst(sql.unsafe`select count(*) from audit_outbox`));
  async function append(audited: AuditInput) {
    const made = executionClaim(executionBody() as Parameters<typeof executionClaim>[0]);
    if (!made.ok) throw new Error(made.message);
    const result = await bus.request(subjects.executionsRecord, {
      claim: made.claim,
      timestamp: new Date().toISOString(),
      audit: audited,
      attested: { jti: null, sub: 'outbox-agent', scope: ['execution:record'], proven: false, tenantId: null },
    });
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  }
  async function until(what: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + machineTimeout(10_000);
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error('not within 10 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('appends to the audit chain the entry of a committed append that no edge sent, and empties the outbox', async () => {
    const answered = await append(entry('aud_outboxorphan01'));
    expect(answered.replayed).toBe(false);
    await until(async () => (await findAuditIds(storage.pool, ['aud_outboxorphan01'])).size === 1 && (await outboxRows()) === 0);
    expect(await verifyAuditChain(storage)).toMatchObject({ valid: true });
  });

  it('deletes the row of an entry its edge sent, without appending it twice', async () => {
    const sent = entry('aud_outboxsent0001');
    await append(sent);
    const appended = await bus.request(subjects.auditAppend, { entries: [sent], retry: true });
    expect(appended.ok).toBe(true);
    await until(async () => (await outboxRows()) === 0);
    const chain = await storage.pool.oneFirst(sql.unsafe`select count(*) from audit_entries where id = ${sent.id}`);
    expect(Number(chain)).toBe(1);
    expect(await verifyAuditChain(storage)).toMatchObject({ valid: true, checked: 2 });
  });
});
