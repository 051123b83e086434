import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { closeEdge } from './edge-close.ts';

/**
 * An edge's close against a keep-alive client (the dashboard scrapes every edge's /metrics, a probe
 * reads /ready): an answer still being prepared when the close begins is sent, and its connection,
 * idle afterwards, does not hold the close until the client lets go.
 */
const GRACE_MS = 10_000;
const logger = pino({ level: 'silent' });
const agents: Agent[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.destroy();
});

function get(port: number, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/slow', agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('closing an edge', () => {
  it('answers a request in flight when the close begins, then closes well before half the grace time', async () => {
    const { promise: arrived, resolve: setArrived } = Promise.withResolvers<void>();
    const { promise: gate, resolve: openGate } = Promise.withResolvers<void>();
    const app = Fastify();
    app.get('/slow', async () => {
      setArrived();
      await gate;
      return { answered: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    const answer = get((app.server.address() as AddressInfo).port, agent);
    await arrived;
    const started = performance.now();
    const closed = closeEdge(app, GRACE_MS, logger);
    // The close has begun (the listener no longer listens) while the answer is still held.
    await expect.poll(() => app.server.listening).toBe(false);
    openGate();
    expect(await answer).toEqual({ status: 200, body: '{"answered":true}' });
    await closed;
    // Before: the idle keep-alive connection held the close until the force at GRACE_MS / 2.
    expect(performance.now() - started).toBeLessThan(GRACE_MS / 4);
  });

  it('closes a connection that never sent a request at half the grace time', async () => {
    const app = Fastify();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { createConnection } = await import('node:net');
    const socket = createConnection((app.server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const started = performance.now();
    await closeEdge(app, 400, logger);
    await ended;
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
