import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * A listener's stop is bounded by half the grace time: a connection that opened and never sent a byte
 * (keep-alive pools do this) is not idle to Node, and without the forced close after half the grace time
 * it held `app.close()` until the request timeout, the suite's stop with it.
 */
let t: TestSuite | undefined;
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await t?.stop();
});

describe('stopping a listener', () => {
  it('closes a connection that never sent a request once the grace time has passed, and stops', { timeout: machineTimeout(30_000) }, async () => {
    t = await startTestSuite({ SUITE_SHUTDOWN_GRACE_MS: '1000' });
    const url = new URL(t.url('scheduler'));
    const silent = connect(Number(url.port), url.hostname);
    sockets.push(silent);
    await new Promise<void>((resolve, reject) => silent.once('connect', resolve).once('error', reject));
    const closed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    const started = Date.now();
    const edge = t.suite.edges.find((e) => e.service === 'scheduler');
    await edge?.stop();
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
