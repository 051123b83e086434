import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { probe, startHealthWatch, type ServiceHealth } from './health.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/** A listener's /ready as the edges answer it: 200 with checks, or 503 naming the failing one. */
function readyServer(ready: () => boolean): Server {
  return createServer((_req, res) => {
    const ok = ready();
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(ok ? { ready: true, checks: { bus: true } } : { error: { code: 'SERVICE_UNAVAILABLE', message: 'not ready' }, checks: { bus: false } }),
    );
  });
}
const listen = (s: Server, port = 0) => new Promise<number>((r) => s.listen(port, '127.0.0.1', () => r((s.address() as { port: number }).port)));
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .filter((s) => s.listening)
      .map(close),
  );
});

describe("the dashboard's health probes", () => {
  it('report ready, not ready naming the failing check, and unknown with the reason when nothing answers', async () => {
    let ready = true;
    const s = readyServer(() => ready);
    servers.push(s);
    const base = `http://127.0.0.1:${await listen(s)}`;
    expect(await probe('trust', base)).toMatchObject({ service: 'trust', state: 'ready', checks: { bus: true } });
    ready = false;
    expect(await probe('trust', base)).toMatchObject({ state: 'not-ready', reason: 'not ready: bus' });
    await close(s);
    const gone = await probe('trust', base);
    expect(gone.state).toBe('unknown');
    expect((gone as { reason: string }).reason).toMatch(/^http:\/\/127\.0\.0\.1:\d+ could not be reached \(.+\)$/);
  });

  it('turn a stopped listener UNKNOWN within a round or two, and ready again when it returns', async () => {
    const s = readyServer(() => true);
    servers.push(s);
    const port = await listen(s);
    const rounds: ServiceHealth[][] = [];
    const watch = startHealthWatch(
      (service) => `http://127.0.0.1:${service === 'trust' ? port : 1}`,
      50,
      (r) => rounds.push(r),
    );
    const trustState = () => rounds.at(-1)?.find((h) => h.service === 'trust')?.state;
    const until = async (state: string) => {
      const end = Date.now() + machineTimeout(3000);
      while (trustState() !== state) {
        if (Date.now() > end) throw new Error(`trust never became ${state}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await until('ready');
      await close(s);
      await until('unknown');
      const back = readyServer(() => true);
      servers.push(back);
      await listen(back, port);
      await until('ready');
    } finally {
      watch.stop();
    }
  });

  it('say why a listener configured with port 0 is unknown, without calling it', async () => {
    expect(await probe('bench', undefined)).toMatchObject({ state: 'unknown', reason: expect.stringContaining('port 0') });
  });
});
