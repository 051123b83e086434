import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { caller, serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let call: ReturnType<typeof caller>;
let token: string;
let trust: ServiceCall;
let executionId: string;

beforeAll(async () => {
  t = await startTestSuite();
  call = caller(t);
  token = (await t.mint(['trust:*', 'execution:record', 'execution:read', 'audit:read'])).token;
  trust = serviceCaller(t, 'trust', token);
  const recorded = await call('/executions', { token, body: { subject: 'bot-1', module: 'crm', action: 'update', input: { a: 1 }, outcome: 'success' } });
  expect(recorded.status).toBe(201);
  executionId = recorded.body.id;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const urlProof = { url: 'https://example.org/report.pdf', sha256: createHash('sha256').update('report').digest('hex') };
const event = (subjectId: string, kind: string, proof: unknown = urlProof, extra: Record<string, unknown> = {}) => ({ subjectId, kind, proof, ...extra });

describe('trust rule 1: every event points at an artefact that proves it', () => {
  it('records an event proven by an execution of ours that exists and verifies, and says how the proof was checked', async () => {
    const r = await trust('/events', { body: event('bot-1', 'task-succeeded', { executionId }) });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      subjectId: 'bot-1',
      subjectType: 'agent',
      kind: 'task-succeeded',
      proof: { executionId },
    });
    expect(r.body.proofCheck).toMatch(/exists and verifies/);
  });

  it('refuses an event without a proof, or with an execution id or audit entry id that is not recorded, with 400 naming the field and stores nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ subjectId: 'bot-2', kind: 'task-failed' }, /proof/],
      [event('bot-2', 'task-failed', { executionId: `exec_${'0'.repeat(32)}` }), /\/proof\/executionId: no execution/],
      [event('bot-2', 'task-failed', { auditEntryId: 'aud_doesnotexist' }), /\/proof\/auditEntryId/],
      [event('bot-2', 'task-failed', { url: 'https://example.org/x' }), /proof/],
      [event('bot-2', 'task-failed', { url: 'ftp://example.org/x', sha256: urlProof.sha256 }), /proof/],
      [event('bot-2', 'not-a-kind'), /kind/],
    ];
    for (const [body, message] of cases) {
      const r = await trust('/events', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    expect((await trust('/events/bot-2')).status).toBe(404);
  });

  it('accepts an audit entry id that is on the audit chain', async () => {
    const audit = await call('/audit?limit=1', { token });
    const auditEntryId = audit.body.entries[0].id as string;
    const r = await trust('/events', { body: event('bot-audit', 'note', { auditEntryId }) });
    expect(r.status).toBe(201);
    expect(r.body.proofCheck).toBe(`audit entry ${auditEntryId} exists`);
  });
});

describe('trust rule 2: events can be appealed and scores are contestable', () => {
  it('an upheld appeal removes the event from the score; the event and the appeal stay on record', async () => {
    await trust('/events', { body: event('bot-appeal', 'task-succeeded') });
    const bad = await trust('/events', { body: event('bot-appeal', 'policy-violation') });
    const before = await trust('/score/bot-appeal');
    expect(before.body.score).toBe(50 + 2 - 8);
    const link = before.body.contributions.find((c: { id: string }) => c.id === bad.body.id);
    expect(link).toMatchObject({ delta: -8, reason: 'policy-violation', appeal: `/events/${bad.body.id}/appeal` });

    const appeal = await trust(link.appeal, { body: { reason: "the violation was the operator's configuration" } });
    expect(appeal.status).toBe(201);
    expect(appeal.body).toMatchObject({ state: 'pending', eventId: bad.body.id });
    expect((await trust(link.appeal, { body: { reason: 'again' } })).status).toBe(409);

    const decided = await trust(`/appeals/${appeal.body.id}/decide`, { body: { decision: 'upheld', reason: 'log shows the operator misconfigured it' } });
    expect(decided.status).toBe(200);
    expect(decided.body.state).toBe('upheld');
    const again = await trust(`/appeals/${appeal.body.id}/decide`, { body: { decision: 'rejected', reason: 'x' } });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/"upheld": decide needs it to be "pending"/);

    expect((await trust(link.appeal, { body: { reason: 'once more' } })).status).toBe(409);
    const after = await trust('/score/bot-appeal');
    expect(after.body.score).toBe(52);
    expect(after.body.excluded).toContainEqual(expect.objectContaining({ id: bad.body.id, reason: 'an appeal against this event was upheld' }));
    const events = await trust('/events/bot-appeal');
    expect(events.body.events.map((e: { id: string }) => e.id)).toContain(bad.body.id);
    expect((await trust(`/events/${bad.body.id}/appeals`)).body.appeals).toEqual([expect.objectContaining({ id: appeal.body.id, state: 'upheld' })]);
  });

  it('answers 404 for unknown events, appeals and scores, and empty evidence for an unknown subject', async () => {
    expect((await trust('/events/evt_unknown/appeal', { body: { reason: 'x' } })).status).toBe(404);
    expect((await trust('/events/evt_unknown/appeals')).status).toBe(404);
    expect((await trust('/appeals/apl_unknown/decide', { body: { decision: 'upheld', reason: 'x' } })).status).toBe(404);
    expect((await trust('/score/nobody')).status).toBe(404);
    // Evidence about a subject nothing is recorded about is no facts, not an error (issue 23 part 6).
    expect((await trust('/evidence/nobody')).body).toMatchObject({ subjectType: null, events: [], breaches: [] });
  });
});

describe('trust rule 3: evidence is recorded facts only, for every subject type including humans', () => {
  it('returns the events of a human with their proofs and no score, ranking or conclusion', async () => {
    await trust('/events', { body: event('alice', 'commendation', urlProof, { subjectType: 'human', summary: 'Helped resolve incident 42' }) });
    const r = await trust('/evidence/alice');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ subjectId: 'alice', subjectType: 'human', events: [expect.objectContaining({ kind: 'commendation', proof: urlProof })] });
    expect(JSON.stringify(r.body)).not.toMatch(/"(score|rank|ranking|conclusion|delta)"/);
    const score = await trust('/score/alice');
    expect(score.status).toBe(404);
    expect(score.body.error.message).toMatch(/agents only/);
    expect((await trust('/scores')).body.scores.map((s: { subjectId: string }) => s.subjectId)).not.toContain('alice');
  });

  it('refuses to record a subject under a second type (409)', async () => {
    const r = await trust('/events', { body: event('alice', 'note', urlProof, { subjectType: 'agent' }) });
    expect(r.status).toBe(409);
  });
});

describe('trust rule 4: a score check allows whenever gating is disabled', () => {
  it('allows an agent whose score is at the floor, and an unknown subject, when gating is off (the default)', async () => {
    for (let i = 0; i < 7; i++) await trust('/events', { body: event('bot-bad', 'policy-violation') });
    expect((await trust('/score/bot-bad')).body.score).toBe(0);
    for (const subject of ['bot-bad', 'never-seen']) {
      const r = await trust(`/score/${subject}/check`, { method: 'POST' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allowed: true, gating: 'disabled' });
      expect(r.body.reason).toMatch(/never deny/);
    }
  });
});

describe('GET /scores', () => {
  it('lists agents with their advisory score and where each is explained', async () => {
    const r = await trust('/scores');
    expect(r.status).toBe(200);
    expect(r.body.scores).toContainEqual(expect.objectContaining({ subjectId: 'bot-1', score: 52, advisory: true, explanation: '/score/bot-1' }));
    expect(r.body.method).toMatchObject({ name: 'additive-v1', baseline: 50 });
  });
});
