import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LIVE_SOCKETS_PER_CREDENTIAL } from '../../services/dashboard/live.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Issue 25, finding 6: one token could open any number of `/live` sockets (500 accepted), each
 * holding a socket, a timer and a place in every broadcast. Now each credential holds at most
 * LIVE_SOCKETS_PER_CREDENTIAL; the next is closed with 1008 and says why; others are unaffected.
 */
let t: TestSuite;
beforeAll(async () => {
  // Short socket timeouts: an open live socket must outlive them (it is no slow request).
  t = await startTestSuite({ SUITE_HTTP_HEADERS_TIMEOUT_MS: '300', SUITE_HTTP_REQUEST_TIMEOUT_MS: '600' });
}, machineTimeout(60_000));
afterAll(() => t?.stop());

interface Opened {
  ws: WebSocket;
  hello: Promise<unknown>;
  closed: Promise<{ code: number; reason: string }>;
}

function open(token: string): Promise<Opened> {
  const ws = new WebSocket(t.url('dashboard', '/live').replace('http', 'ws'), ['suite.live.v1', `bearer.${token}`]);
  const hello = new Promise((resolve) =>
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { kind: string };
      if (m.kind === 'hello') resolve(m);
    }),
  );
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, hello, closed }));
    ws.once('error', reject);
  });
}

describe('live sockets per credential', () => {
  it("closes the socket past the cap with 1008, keeping the others and other tokens' sockets open", { timeout: machineTimeout(30_000) }, async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'many-tabs' });
    const kept: Opened[] = [];
    for (let i = 0; i < LIVE_SOCKETS_PER_CREDENTIAL; i++) {
      const c = await open(token);
      await c.hello;
      kept.push(c);
    }
    const extra = await open(token);
    expect(await extra.closed).toEqual({ code: 1008, reason: `at most ${LIVE_SOCKETS_PER_CREDENTIAL} live sockets per token` });
    const other = await open((await t.mint(['execution:read'], { sub: 'another' })).token);
    await other.hello;
    // Past the header and request timeouts, every admitted socket is still open.
    await new Promise((r) => setTimeout(r, 1000));
    expect(kept.every((c) => c.ws.readyState === WebSocket.OPEN)).toBe(true);
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    // A closed socket frees its place.
    kept[0]!.ws.close();
    await kept[0]!.closed;
    // The server may see that close a moment after this client does: a refusal then is retried.
    let again = await open(token);
    while ((await Promise.race([again.hello.then(() => 'admitted'), again.closed.then(() => 'refused')])) === 'refused') again = await open(token);
    for (const c of [...kept.slice(1), other, again]) c.ws.close();
  });
});
