import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Child } from '../compose/child.ts';
import { NatsNode } from '../compose/nats-node.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * client/examples/follow-traces.ts as a user runs it (its own process, the events user of
 * compose/nats-auth.conf) against a suite on NATS (the suite user): records appended before its first
 * start, while it runs, and while it is stopped are each printed once, in order, none missing.
 */

const EXAMPLE = new URL('../client/examples/follow-traces.ts', import.meta.url).pathname;
// A letter first: nats-server parses a $VARIABLE's value as configuration, and one beginning with a
// digit does not parse (compose/nats-auth.conf).
const passwords = { SUITE_NATS_PASSWORD: `p${randomBytes(12).toString('hex')}`, EVENTS_NATS_PASSWORD: `p${randomBytes(12).toString('hex')}` };
let nats: NatsNode;
let suite: TestSuite;
let token: string;
let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'follow-traces-'));
  nats = new NatsNode({
    name: 'nats-auth',
    storeDir: join(stateDir, 'nats'),
    config: readFileSync(new URL('../compose/nats-auth.conf', import.meta.url), 'utf8'),
    env: { PATH: process.env.PATH ?? '', ...passwords },
  });
  await nats.start();
  suite = await startTestSuite({ SUITE_NATS_URL: nats.url, SUITE_NATS_USER: 'suite', SUITE_NATS_PASSWORD: passwords.SUITE_NATS_PASSWORD });
  token = (await suite.mint(['execution:record', 'execution:read'])).token;
}, machineTimeout(120_000));

afterAll(async () => {
  await suite?.stop();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

async function append(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(suite.url('token', '/executions'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'agent-follow', module: 'test', action: `step-${i}`, input: { i }, outcome: 'success' }),
    });
    expect(res.status).toBe(201);
  }
}

function startFollower(): Child {
  return new Child({
    name: 'follow-traces',
    args: [EXAMPLE],
    cwd: stateDir,
    env: {
      PATH: process.env.PATH ?? '',
      FOLLOW_NATS_URL: nats.url,
      FOLLOW_NATS_USER: 'events',
      FOLLOW_NATS_PASSWORD: passwords.EVENTS_NATS_PASSWORD,
      SUITE_TOKEN_URL: suite.url('token'),
      SUITE_TOKEN: token,
      FOLLOW_STATE: join(stateDir, 'state.json'),
    },
  });
}

const printed = (c: Child) =>
  c
    .output()
    .split('\n')
    .flatMap((l) => {
      const m = /^\[follow-traces\] (\{.*\})$/.exec(l);
      return m ? [JSON.parse(m[1]!) as { seq: number; from: string }] : [];
    });

describe('the trace-event subscriber example (client/examples/follow-traces.ts)', () => {
  it('prints every record once, in order, across a stop and a restart, from the export and live', { timeout: machineTimeout(180_000) }, async () => {
    await append(5); // before its first start: read from the export
    const first = startFollower();
    await expect.poll(() => printed(first).length, { timeout: 30_000 }).toBe(5);
    await append(3); // while it runs: live events
    await expect.poll(() => printed(first).length, { timeout: 30_000 }).toBe(8);
    expect((await first.stop()).code).toBe(0);
    await append(4); // while it is stopped: missed by NATS, read from the export on restart
    const second = startFollower();
    await expect.poll(() => printed(second).length, { timeout: 30_000 }).toBe(4);
    await append(2);
    await expect.poll(() => printed(second).length, { timeout: 30_000 }).toBe(6);
    expect((await second.stop()).code).toBe(0);

    const seqs = [...printed(first), ...printed(second)].map((r) => r.seq);
    expect(seqs).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(
      printed(first)
        .slice(5)
        .every((r) => r.from === 'live'),
    ).toBe(true);
    expect(
      printed(second)
        .slice(0, 4)
        .every((r) => r.from === 'export'),
    ).toBe(true);
  });
});
