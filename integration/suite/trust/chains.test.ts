import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../../testing/suite.ts';
import { caller, serviceCaller, type ServiceCall } from '../../../testing/identities.ts';
import { subjects } from '../../../bus/index.ts';
import { eventually } from '../../../testing/http-target.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

let t: TestSuite;
let token: string;
let call: ReturnType<typeof caller>;
let trust: ServiceCall;

beforeAll(async () => {
  // A one-second stall window (the smallest allowed), so that a stall shows within the test.
  t = await startTestSuite({ SUITE_TRUST_STALL_MS: '1000', SUITE_TRUST_MAX_DEPTH: '16', SUITE_TRUST_MAX_FANOUT: '32' });
  call = caller(t);
  token = (await t.mint(['trust:*', 'execution:record'])).token;
  trust = serviceCaller(t, 'trust', token);
}, machineTimeout(60_000));
afterAll(() => t?.stop());

async function interaction(body: Record<string, unknown>) {
  const r = await trust('/interactions', { body: { outcome: 'success', ...body } });
  if (r.status !== 201) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string; chainId: string; depth: number; path: string[] };
}

const anomaliesOf = async (chainId: string) =>
  ((await trust('/anomalies?limit=500')).body.anomalies as Array<{ kind: string; chainId: string; records: string[] }>).filter((a) => a.chainId === chainId);

describe('trust rule 9: GET /anomalies reports cycles, runaways, stalls and disagreement, each with its records', () => {
  it('finds a cycle: an agent called again within its own call path', async () => {
    const root = await interaction({ caller: 'planner', callee: 'researcher', chainId: 'chain-cycle' });
    const back = await interaction({ caller: 'researcher', callee: 'planner', parentId: root.id });
    expect(back).toMatchObject({ chainId: 'chain-cycle', depth: 2, path: ['planner', 'researcher', 'planner'] });
    expect(await anomaliesOf('chain-cycle')).toEqual([expect.objectContaining({ kind: 'cycle', records: expect.arrayContaining([back.id, root.id]) })]);
  });

  it('finds a runaway by depth and by fan-out', async () => {
    let parent = await interaction({ caller: 'a0', callee: 'a1', chainId: 'chain-deep' });
    for (let i = 2; i <= 17; i++) parent = await interaction({ caller: `a${i - 1}`, callee: `a${i}`, parentId: parent.id });
    expect((await anomaliesOf('chain-deep')).map((a) => a.kind)).toEqual(['runaway-depth']);

    const hub = await interaction({ caller: 'fan', callee: 'hub', chainId: 'chain-wide' });
    for (let i = 0; i < 33; i++) await interaction({ caller: 'hub', callee: `worker-${i}`, parentId: hub.id });
    const [wide] = await anomaliesOf('chain-wide');
    expect(wide).toMatchObject({ kind: 'runaway-fanout' });
    expect(wide!.records).toContain(hub.id);
  });

  it('finds a stall: a chain whose newest interaction stayed pending past the window', async () => {
    const sentAt = Date.now();
    const waiting = await interaction({ caller: 'x', callee: 'y', chainId: 'chain-stall', outcome: 'pending' });
    expect(await anomaliesOf('chain-stall')).toEqual([]);
    // Waits on the stall itself, and checks it did not show before its window (1 s) had passed.
    const stall = await eventually(async () => {
      const found = await anomaliesOf('chain-stall');
      return found.length > 0 ? found : undefined;
    }, 'the stall');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1000);
    expect(stall).toEqual([expect.objectContaining({ kind: 'stall', records: [waiting.id] })]);
    expect((await trust('/chains/chain-stall')).body.stalled).toBe(true);
  });

  it('finds disagreement between observers of one interaction, and names each observation', async () => {
    const i = await interaction({ caller: 'buyer', callee: 'seller', chainId: 'chain-disagree' });
    const o1 = await trust(`/interactions/${i.id}/observe`, { body: { observer: 'auditor-1', outcome: 'success' } });
    expect(await anomaliesOf('chain-disagree')).toEqual([]);
    const o2 = await trust(`/interactions/${i.id}/observe`, { body: { observer: 'auditor-2', outcome: 'failure', note: 'goods never arrived' } });
    expect(await anomaliesOf('chain-disagree')).toEqual([
      expect.objectContaining({ kind: 'disagreement', records: expect.arrayContaining([i.id, o1.body.id, o2.body.id]) }),
    ]);
  });

  it('a clean chain of 1,000 interactions yields no anomaly', { timeout: machineTimeout(120_000) }, async () => {
    const ids: string[] = [];
    const root = await interaction({ caller: 'root', callee: 'n0', chainId: 'chain-clean' });
    ids.push(root.id);
    // A tree of fan-out 10: depth 4 at most, well inside the bounds, and every agent called once.
    for (let n = 1; n < 1000; n++) {
      const parentIndex = Math.floor((n - 1) / 10);
      ids.push((await interaction({ caller: `n${parentIndex}`, callee: `n${n}`, parentId: ids[parentIndex] })).id);
    }
    const chain = await trust('/chains/chain-clean');
    expect(chain.body).toMatchObject({ interactionCount: 1000, maxDepth: 4, stalled: false, anomalies: [] });
    expect(await anomaliesOf('chain-clean')).toEqual([]);
  });
});

describe("trust rule 8: an observation is stored as its observer's opinion, never as truth", () => {
  it("keeps the interaction's recorded outcome and returns the observation as an opinion", async () => {
    const i = await interaction({ caller: 'p', callee: 'q', chainId: 'chain-opinion', outcome: 'success' });
    const o = await trust(`/interactions/${i.id}/observe`, { body: { observer: 'watcher', outcome: 'failure' } });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ kind: 'opinion', observer: 'watcher', outcome: 'failure', interactionId: i.id });
    const chain = await trust('/chains/chain-opinion');
    expect(chain.body.interactions[0].outcome).toBe('success');
    expect(chain.body.observations).toEqual([expect.objectContaining({ kind: 'opinion', observer: 'watcher' })]);
  });
});

describe('interactions and chains', () => {
  it('links an execution named by an interaction to it', async () => {
    const recorded = await call('/executions', { token, body: { subject: 'p', module: 'm', action: 'a', input: 1, outcome: 'failure' } });
    const i = await interaction({ caller: 'p', callee: 'q', chainId: 'chain-exec', executionId: recorded.body.id });
    const chain = await trust('/chains/chain-exec');
    expect(chain.body.executions).toEqual([expect.objectContaining({ executionId: recorded.body.id, interactionId: i.id, outcome: 'failure' })]);
  });

  it('links an execution recorded after the interaction named it, from the trace appended broadcast', async () => {
    const later = `exec_${'ab'.repeat(16)}`;
    const i = await interaction({ caller: 'p', callee: 'q', chainId: 'chain-exec-later', executionId: later, outcome: 'pending' });
    expect((await trust('/chains/chain-exec-later')).body.executions).toEqual([]);
    t.suite.bus.publish(subjects.executionsAppended, { id: later, seq: 99, hash: 'f'.repeat(64), subject: 'p', outcome: 'success' });
    let links: unknown[] = [];
    for (let n = 0; n < 50 && links.length === 0; n++) {
      await new Promise((r) => setTimeout(r, 20));
      links = (await trust('/chains/chain-exec-later')).body.executions;
    }
    expect(links).toEqual([expect.objectContaining({ executionId: later, interactionId: i.id, outcome: 'success' })]);
  });

  it('refuses bad bodies with 400 naming the field, a parent from another chain, and answers 404 for unknown ids', async () => {
    const root = await interaction({ caller: 'u', callee: 'v', chainId: 'chain-strict' });
    const cases: Array<[unknown, RegExp]> = [
      [{ caller: 'u', outcome: 'success' }, /callee/],
      [{ caller: 'u', callee: 'v', outcome: 'maybe' }, /outcome/],
      [{ caller: 'u', callee: 'v', outcome: 'success', parentId: 'int_nope' }, /\/parentId/],
      [{ caller: 'u', callee: 'v', outcome: 'success', parentId: root.id, chainId: 'other' }, /\/chainId/],
    ];
    for (const [body, message] of cases) {
      const r = await trust('/interactions', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    expect((await trust('/chains/chain-strict')).body.interactions).toHaveLength(1);
    expect((await trust('/interactions/int_nope/observe', { body: { observer: 'o', outcome: 'success' } })).status).toBe(404);
    expect((await trust('/chains/nope')).status).toBe(404);
    expect((await trust('/chains')).body.chains.map((c: { id: string }) => c.id)).toContain('chain-strict');
    expect((await trust('/anomalies?kind=bogus')).status).toBe(400);
  });
});
