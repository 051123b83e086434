import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../testing/edge-app.ts';
import type { EdgeApp } from './types.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Issue 25, finding 5: idle or slow sockets are closed by the listener (header, request and
 * keep-alive timeouts), so a slow-loris client cannot hold connections open for minutes. The
 * timeouts are set small here; the test waits for the server to close each socket (an event), and
 * bounds nothing itself (a timed-out request is answered 400 `INVALID_REQUEST` "request timed out",
 * the status table's one status for a request the parser gave up on): before the fix the sockets stayed open and the test ran into its timeout.
 */
let t: TestApp | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await t?.app.close();
  t = undefined;
});

function routes(app: EdgeApp): void {
  app.get('/plans', { config: { authority: { kind: 'public' } } }, async () => ({ plans: [] }));
  app.post('/echo', { config: { authority: { kind: 'public' } } }, async (request) => request.body);
}

async function listening(): Promise<number> {
  t = await testApp(routes, { timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 300 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.app.server.address() as { port: number }).port;
}

/** Resolves with what the server sent once it closes the socket. */
function closedByServer(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1'))));
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    sockets.push(socket);
    socket.on('error', reject);
  });
}

describe('socket timeouts on a listener', () => {
  it('closes a slow-loris socket that never finishes its headers, answering 400 "request timed out"', { timeout: machineTimeout(20_000) }, async () => {
    const socket = await open(await listening());
    const closed = closedByServer(socket);
    socket.write('GET /plans HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // Keep trickling header bytes, as a slow-loris client does, until the server gives up.
    const drip = setInterval(() => socket.writable && socket.write('a'), 50);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 400[\s\S]*request timed out/);
    } finally {
      clearInterval(drip);
    }
  });

  it('closes a socket that connects and sends nothing', { timeout: machineTimeout(20_000) }, async () => {
    const socket = await open(await listening());
    expect(await closedByServer(socket)).toBe('');
  });

  it('closes a socket whose body never arrives, answering 400 "request timed out"', { timeout: machineTimeout(20_000) }, async () => {
    const socket = await open(await listening());
    const closed = closedByServer(socket);
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    expect(await closed).toMatch(/^HTTP\/1\.1 400[\s\S]*request timed out/);
  });

  it('closes a kept-alive socket left idle after its answer', { timeout: machineTimeout(20_000) }, async () => {
    const socket = await open(await listening());
    const closed = closedByServer(socket);
    socket.write('GET /plans HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/keep-alive/i);
  });
});
