import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import { currentPin, insertAttestation, insertPin, listAttestations, listCurrentPins, pinHistory, supersedePin, type NewPin } from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

const pin = (name: string, version = '2024-05-13'): NewPin => ({
  name,
  fingerprint: { provider: 'openai', model: 'gpt-4o', version },
  approvedBy: 'risk board',
  basis: 'eval run 17',
  recordedBy: 'admin',
});

describe.each(storageKinds())('model pin storage on $kind', (kind) => {
  let t: TestStorage;
  beforeAll(async () => {
    t = await kind.open();
  }, machineTimeout(60_000));
  afterAll(() => t?.dispose());

  it('pins baseline 1 of a name once; a second pin of the name returns nothing and changes nothing', async () => {
    const first = await insertPin(t.storage.pool, pin('support-bot'));
    expect(first).toMatchObject({
      name: 'support-bot',
      baseline: 1,
      fingerprint: { provider: 'openai', model: 'gpt-4o', version: '2024-05-13' },
      supersedes: null,
      supersededAt: null,
    });
    expect(await insertPin(t.storage.pool, pin('support-bot', 'other'))).toBeNull();
    expect(await currentPin(t.storage.pool, 'support-bot')).toEqual(first);
  });

  it('supersedes under concurrency without a fork: consecutive baselines, one current, none deleted', async () => {
    await insertPin(t.storage.pool, pin('raced'));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => supersedePin(t.storage.pool, pin('raced', `v${i}`))));
    expect(results.map((r) => r!.baseline).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    for (const r of results) expect(r!.supersedes).toBe(r!.baseline - 1);
    const history = await pinHistory(t.storage.pool, 'raced');
    expect(history.map((p) => p.baseline)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(history.filter((p) => p.supersededAt === null).map((p) => p.baseline)).toEqual([7]);
    expect((await listCurrentPins(t.storage.pool)).filter((p) => p.name === 'raced')).toHaveLength(1);
  });

  it('supersedes nothing for an unknown name', async () => {
    expect(await supersedePin(t.storage.pool, pin('nobody'))).toBeNull();
    expect(await pinHistory(t.storage.pool, 'nobody')).toEqual([]);
  });

  it('keeps attestations newest first with their drift, and counts them all', async () => {
    await insertPin(t.storage.pool, pin('attested'));
    for (let i = 0; i < 3; i++) {
      await insertAttestation(t.storage.pool, {
        id: `att_${i}`,
        name: 'attested',
        baseline: 1,
        observed: { provider: 'openai', model: 'gpt-4o', version: `v${i}` },
        state: 'FAILED',
        drift: [{ field: 'version', approved: '2024-05-13', observed: `v${i}` }],
        finding: `finding ${i}`,
        attestedBy: 'admin',
      });
    }
    const { attestations, total } = await listAttestations(t.storage.pool, 'attested', 2);
    expect(total).toBe(3);
    expect(attestations.map((a) => a.id)).toEqual(['att_2', 'att_1']);
    expect(attestations[0]).toMatchObject({ baseline: 1, state: 'FAILED', drift: [{ field: 'version', approved: '2024-05-13', observed: 'v2' }] });
  });
});
