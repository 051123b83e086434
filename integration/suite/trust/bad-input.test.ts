import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let trust: ServiceCall;
const ids: Record<string, string> = {};
const proof = { url: 'https://example.org/x', sha256: createHash('sha256').update('x').digest('hex') };

beforeAll(async () => {
  t = await startTestSuite();
  const { token } = await t.mint(['trust:*']);
  trust = serviceCaller(t, 'trust', token);
  ids.event = (await trust('/events', { body: { subjectId: 'bot', kind: 'note', proof } })).body.id;
  ids.appeal = (await trust(`/events/${ids.event}/appeal`, { body: { reason: 'r' } })).body.id;
  ids.contract = (await trust('/contracts', { body: { title: 't', agentId: 'bot', operatorId: 'op', terms: [{ id: 'a', text: 'b' }] } })).body.id;
  ids.breach = (await trust(`/contracts/${ids.contract}/breach`, { body: { party: 'agent', description: 'd' } })).body.id;
  ids.dispute = (await trust('/disputes', { body: { title: 't', question: 'q', irreversible: false } })).body.id;
  ids.interaction = (await trust('/interactions', { body: { caller: 'a', callee: 'b', outcome: 'success' } })).body.id;
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** A digest of every trust table's rows. */
async function trustTables(): Promise<Record<string, string>> {
  const pool = t.suite.storage!.pool;
  const tables = await pool.anyFirst(sql.unsafe`select tablename from pg_tables where schemaname = 'public' and tablename like 'trust_%' order by tablename`);
  const out: Record<string, string> = {};
  for (const table of tables as string[]) {
    out[table] = (await pool.oneFirst(
      sql.unsafe`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from ${sql.identifier([table])} t`,
    )) as string;
  }
  return out;
}

describe('bad input on every trust route', () => {
  it('answers 400 naming the field, and stores nothing', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/events', { subjectId: 'bot', kind: 'note' }, /proof/],
      ['/events', { subjectId: '', kind: 'note', proof }, /subjectId/],
      ['/events', { subjectId: 'a'.repeat(101), kind: 'note', proof }, /subjectId/],
      ['/events', { subjectId: 'bot', kind: 'note', proof, extra: 1 }, /extra|additional/],
      ['/events', { subjectId: 'bot', kind: 'note', proof, summary: 'x'.repeat(1025) }, /summary/],
      ['/events', { subjectId: 'bot', kind: 'note', proof, subjectType: 'robot' }, /subjectType/],
      [`/events/${ids.event}/appeal`, {}, /reason/],
      [`/events/${ids.event}/appeal`, { reason: 'a\u0000b' }, /reason/],
      [`/appeals/${ids.appeal}/decide`, { decision: 'maybe', reason: 'r' }, /decision/],
      [`/appeals/${ids.appeal}/decide`, { decision: 'upheld' }, /reason/],
      ['/verify', { output: 'x' }, /sources/],
      ['/verify', { output: '', sources: ['x'] }, /output/],
      [
        '/verify',
        { output: 'x', sources: ['s'.repeat(60_000), 's'.repeat(60_000), 's'.repeat(60_000), 's'.repeat(60_000)] },
        /\/sources: at most 200000 characters in all/,
      ],
      ['/verify', { output: 'x'.repeat(20_001), sources: ['s'] }, /output/],
      ['/arbitrate', { opinions: [{ participant: 'a' }] }, /position/],
      ['/disputes', { title: 't', question: 'q', irreversible: 'yes' }, /irreversible/],
      [`/disputes/${ids.dispute}/arbitrate`, { opinions: [{ participant: 'a', position: 'p', confidence: -1 }] }, /confidence/],
      [`/disputes/${ids.dispute}/decide`, { outcome: 'x' }, /reason/],
      ['/contracts', { title: 't', agentId: 'bot', operatorId: 'op' }, /terms/],
      [`/contracts/${ids.contract}/breach`, { party: 'agent' }, /description/],
      [`/contracts/${ids.contract}/suspend`, {}, /reason/],
      [`/contracts/${ids.contract}/reinstate`, { reason: 5 }, /reason/],
      [`/breaches/${ids.breach}/remediate`, {}, /remediation/],
      ['/interactions', { caller: 'a', callee: 'b', outcome: 'success', executionId: 'exec_nothex' }, /executionId/],
      [`/interactions/${ids.interaction}/observe`, { observer: 'o' }, /outcome/],
    ];
    const before = await trustTables();
    for (const [path, body, field] of cases) {
      const r = await trust(path, { body });
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message, path).toMatch(field);
    }
    for (const path of [
      '/events/bot?limit=0',
      '/scores?limit=501',
      '/disputes?limit=x',
      '/chains?limit=-1',
      '/anomalies?kind=nope',
      '/evidence/has%20space',
      `/evidence/${'a'.repeat(300)}`,
      `/contracts/${'c'.repeat(101)}`,
    ]) {
      const r = await trust(path);
      expect(r.status, path).toBe(400);
    }
    expect(await trustTables()).toEqual(before);
  });

  it('answers 404 for ids never issued, and stores nothing', async () => {
    const before = await trustTables();
    const posts: Array<[string, unknown]> = [
      ['/events/evt_x/appeal', { reason: 'r' }],
      ['/appeals/apl_x/decide', { decision: 'upheld', reason: 'r' }],
      ['/disputes/dsp_x/arbitrate', {}],
      ['/disputes/dsp_x/decide', { outcome: 'o', reason: 'r' }],
      ['/contracts/ctr_x/breach', { party: 'agent', description: 'd' }],
      ['/contracts/ctr_x/suspend', { reason: 'r' }],
      ['/contracts/ctr_x/reinstate', { reason: 'r' }],
      ['/breaches/brc_x/remediate', { remediation: 'r' }],
      ['/interactions/int_x/observe', { observer: 'o', outcome: 'success' }],
    ];
    for (const [path, body] of posts) expect((await trust(path, { body })).status, path).toBe(404);
    for (const path of [
      '/events/nobody',
      '/events/evt_x/appeals',
      '/score/nobody',
      '/disputes/dsp_x',
      '/contracts/ctr_x',
      '/contracts/ctr_x/health',
      '/chains/chn_x',
    ]) {
      expect((await trust(path)).status, path).toBe(404);
    }
    expect(await trustTables()).toEqual(before);
  });
});
