import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { caller, newAgentKey } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 9: look-alike subjects (`agent-1 `, zero-width, full-width, bidi) were accepted
 * as distinct subjects at enrolment, issuance and recording. One rule (core/subject) now refuses them
 * at all three, and stores a decomposed spelling in NFC (docs/IDENTITIES.md, "Subjects").
 */
let t: TestSuite;
let call: ReturnType<typeof caller>;
let recorder: string;
beforeAll(async () => {
  t = await startTestSuite();
  call = caller(t);
  recorder = (await t.mint(['execution:record'], { sub: 'recorder' })).token;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const LOOKALIKES: Array<[string, string]> = [
  ['a trailing space', 'agent-1 '],
  ['a leading space', ' agent-1'],
  ['a zero-width space', 'agent\u200b-1'],
  ['a right-to-left override', 'agent-\u202e1'],
  ['full-width letters', '\uff41\uff47\uff45\uff4e\uff54-1'],
  ['a no-break space inside', 'agent\u00a01'],
];

const execution = (subject: string) => ({ subject, module: 'm', action: 'a', input: {}, outcome: 'success' });

describe('subjects that read like another', () => {
  it.each(LOOKALIKES)('refuses a subject with %s at enrolment, issuance and recording, naming the field', async (_, subject) => {
    const enrol = await call('/identities', { admin: true, body: { subject, kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(enrol.status, JSON.stringify(enrol.body)).toBe(400);
    expect(enrol.body.error.message).toMatch(/subject/);
    const issue = await call('/auth/token', { admin: true, body: { sub: subject, scope: ['read:x'] } });
    expect(issue.status, JSON.stringify(issue.body)).toBe(400);
    expect(issue.body.error.message).toMatch(/sub/);
    const record = await call('/executions', { token: recorder, body: execution(subject) });
    expect(record.status, JSON.stringify(record.body)).toBe(400);
    expect(record.body.error.message).toMatch(/subject/);
  });

  it('stores a decomposed spelling in NFC, so an enrolled subject cannot be issued to under its other spelling without proof', async () => {
    const nfc = 'ren\u00e9-agent';
    const nfd = 'rene\u0301-agent';
    const enrol = await call('/identities', { admin: true, body: { subject: nfd, kind: 'agent', publicKeyPem: newAgentKey().publicKeyPem } });
    expect(enrol.status, JSON.stringify(enrol.body)).toBe(201);
    expect(enrol.body.subject).toBe(nfc);
    const withoutProof = await call('/auth/token', { admin: true, body: { sub: nfc, scope: ['read:x'] } });
    expect(withoutProof.body.error?.code).toBe('PROOF_REQUIRED');
    const record = await call('/executions', { token: recorder, body: execution(nfd) });
    expect(record.status, JSON.stringify(record.body)).toBe(201);
    const read = await call(`/executions/${record.body.id}`, { token: (await t.mint(['execution:read'])).token });
    expect(read.body.subject).toBe(nfc);
  });

  it('accepts plain subjects with inner spaces and non-Latin letters', async () => {
    for (const sub of ['agent 1', 'агент-7']) {
      const issue = await call('/auth/token', { admin: true, body: { sub, scope: ['read:x'] } });
      expect(issue.status, JSON.stringify(issue.body)).toBe(200);
    }
  });
});
