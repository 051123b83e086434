import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { caller } from '../../testing/identities.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let t: TestSuite;
let call: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await startTestSuite();
  call = caller(t);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

const approved = { provider: 'openai', model: 'gpt-4o', version: '2024-05-13' };
const pinBody = (name: string) => ({ name, fingerprint: approved, approvedBy: 'Model risk board', basis: 'Evaluation run 2025-01-10, report MR-17' });

describe('POST /models', () => {
  it('pins a model as baseline 1 and answers 201 with the pin', async () => {
    const r = await call('/models', { admin: true, body: pinBody('support-bot') });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      name: 'support-bot',
      baseline: 1,
      fingerprint: approved,
      approvedBy: 'Model risk board',
      basis: 'Evaluation run 2025-01-10, report MR-17',
      approvedAt: expect.any(String),
      supersedes: null,
      supersededAt: null,
    });
    expect(Math.abs(Date.parse(r.body.approvedAt) - Date.now())).toBeLessThan(60_000);
  });

  it('answers 409 CONFLICT for a name already pinned, and keeps the baseline', async () => {
    await call('/models', { admin: true, body: pinBody('pinned-once') });
    const again = await call('/models', { admin: true, body: { ...pinBody('pinned-once'), fingerprint: { ...approved, version: 'other' } } });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
    expect(again.body.error.message).toMatch(/supersede/);
    expect((await call('/models/pinned-once', { admin: true })).body.current.fingerprint).toEqual(approved);
  });

  it('refuses a pin without approvedBy, basis or a whole fingerprint with 400 naming the field', async () => {
    const { approvedBy: _a, ...noApprover } = pinBody('x');
    const { basis: _b, ...noBasis } = pinBody('x');
    const cases: Array<[unknown, RegExp]> = [
      [noApprover, /approvedBy/],
      [noBasis, /basis/],
      [{ ...pinBody('x'), fingerprint: { provider: 'openai', model: 'gpt-4o' } }, /version/],
      [{ ...pinBody('x'), approvedBy: '' }, /approvedBy/],
      [{ ...pinBody('bad name!') }, /name/],
    ];
    for (const [body, message] of cases) {
      const r = await call('/models', { admin: true, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    expect((await call('/models/x', { admin: true })).status).toBe(404);
  });
});

describe('POST /models/{name}/attest', () => {
  it('answers FAILED with the drift of each differing field and a finding in words', async () => {
    await call('/models', { admin: true, body: pinBody('drifting') });
    const r = await call('/models/drifting/attest', {
      admin: true,
      body: { fingerprint: { provider: 'openai', model: 'gpt-4o-mini', version: '2024-07-18' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'drifting',
      baseline: 1,
      state: 'FAILED',
      attestedAt: expect.any(String),
      drift: [
        { field: 'model', approved: 'gpt-4o', observed: 'gpt-4o-mini' },
        { field: 'version', approved: '2024-05-13', observed: '2024-07-18' },
      ],
    });
    expect(r.body.finding).toMatch(/^The observed fingerprint differs from baseline 1 of "drifting".* in model and version: /);
    expect(r.body.finding).toMatch(/does not judge the model/);
  });

  it('compares literally: a change of case is drift', async () => {
    await call('/models', { admin: true, body: pinBody('literal') });
    const r = await call('/models/literal/attest', { admin: true, body: { fingerprint: { ...approved, provider: 'OpenAI' } } });
    expect(r.body).toMatchObject({ state: 'FAILED', drift: [{ field: 'provider', approved: 'openai', observed: 'OpenAI' }] });
  });

  it('answers MATCHED with no drift when the observed fingerprint equals the approved one', async () => {
    await call('/models', { admin: true, body: pinBody('steady') });
    const r = await call('/models/steady/attest', { admin: true, body: { fingerprint: approved } });
    expect(r.body).toMatchObject({ state: 'MATCHED', drift: [], baseline: 1 });
    expect(r.body.finding).toMatch(/matches baseline 1 of "steady"/);
  });

  it('answers 404 for an unknown name and 400 for a malformed fingerprint', async () => {
    expect(await call('/models/unknown-model/attest', { admin: true, body: { fingerprint: approved } })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    await call('/models', { admin: true, body: pinBody('strict') });
    const r = await call('/models/strict/attest', { admin: true, body: { fingerprint: { ...approved, extra: 'x' } } });
    expect(r.status).toBe(400);
  });

  it('requires the admin key', async () => {
    const all = await t.mint(['*']);
    expect((await call('/models/steady/attest', { token: all.token, body: { fingerprint: approved } })).status).toBe(403);
  });
});

describe('supersede and history', () => {
  it('replaces a baseline only by supersede, keeping every earlier one and its attestations', async () => {
    await call('/models', { admin: true, body: pinBody('evolving') });
    await call('/models/evolving/attest', { admin: true, body: { fingerprint: { ...approved, version: '2024-08-06' } } });
    const next = { provider: 'openai', model: 'gpt-4o', version: '2024-08-06' };
    const s = await call('/models/evolving/supersede', {
      admin: true,
      body: { fingerprint: next, approvedBy: 'Model risk board', basis: 'Re-evaluation MR-21' },
    });
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ name: 'evolving', baseline: 2, supersedes: 1, supersededAt: null, fingerprint: next, basis: 'Re-evaluation MR-21' });
    const matched = await call('/models/evolving/attest', { admin: true, body: { fingerprint: next } });
    expect(matched.body).toMatchObject({ state: 'MATCHED', baseline: 2 });

    const reader = await t.mint(['model:read']);
    const one = await call('/models/evolving', { token: reader.token });
    expect(one.status).toBe(200);
    expect(one.body.current).toEqual(s.body);
    expect(one.body.baselines.map((b: { baseline: number }) => b.baseline)).toEqual([2, 1]);
    expect(one.body.baselines[1]).toMatchObject({ baseline: 1, fingerprint: approved, supersededAt: expect.any(String) });
    expect(one.body.attestationCount).toBe(2);
    expect(one.body.attestations.map((a: { state: string; baseline: number }) => [a.state, a.baseline])).toEqual([
      ['MATCHED', 2],
      ['FAILED', 1],
    ]);
    expect((await call('/models/evolving?limit=1', { token: reader.token })).body.attestations).toHaveLength(1);

    const list = await call('/models', { token: reader.token });
    const evolving = list.body.models.filter((m: { name: string }) => m.name === 'evolving');
    expect(evolving).toEqual([s.body]);
    expect((await call('/models', { token: (await t.mint(['audit:read'])).token })).status).toBe(403);
  });

  it('answers 404 to supersede an unknown name, and 400 without approvedBy or basis', async () => {
    const body = { fingerprint: approved, approvedBy: 'board', basis: 'b' };
    expect((await call('/models/never-pinned/supersede', { admin: true, body })).status).toBe(404);
    await call('/models', { admin: true, body: pinBody('needs-basis') });
    expect((await call('/models/needs-basis/supersede', { admin: true, body: { fingerprint: approved, approvedBy: 'board' } })).body.error.message).toMatch(
      /basis/,
    );
    expect((await call('/models/needs-basis/supersede', { admin: true, body: { fingerprint: approved, basis: 'b' } })).body.error.message).toMatch(
      /approvedBy/,
    );
    expect((await call('/models/needs-basis', { admin: true })).body.baselines).toHaveLength(1);
  });
});
