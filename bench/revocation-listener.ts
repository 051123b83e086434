/**
 * Process B of the revocation benchmark: its own bus on NATS and a RevocationView, exactly what an
 * edge in another process keeps. Records when each revocation is applied, on the clock the parent
 * uses too (performance.timeOrigin + performance.now(), milliseconds since the epoch), and reports
 * over the IPC channel only when asked, so that nothing but the view runs while revocations arrive.
 *
 *   (forked by bench/revocation.ts)   node bench/revocation-listener.ts NATS_URL
 */
import { createBus, connectNatsTransport } from '../bus/index.ts';
import { RevocationView } from '../actors/revocation/index.ts';

export type ListenerRequest = { type: 'clock'; id: number } | { type: 'report' } | { type: 'stop' };
export type ListenerReply =
  | { type: 'ready' }
  | { type: 'clock'; id: number; t: number }
  | { type: 'report'; applied: Array<[string, number]> };

const now = (): number => performance.timeOrigin + performance.now();
const send = (m: ListenerReply): void => void process.send?.(m);

const natsUrl = process.argv[2];
if (natsUrl === undefined || process.send === undefined) throw new Error('usage: forked with NATS_URL and an IPC channel');

const applied = new Map<string, number>();
const transport = await connectNatsTransport({ servers: natsUrl, name: 'bench-revocation-listener' });
const bus = createBus(transport);
const view = new RevocationView({
  bus,
  stalenessMs: 3000,
  onApplied: (jti) => {
    if (!applied.has(jti)) applied.set(jti, now());
  },
});
await view.start();
await bus.flush();

process.on('message', (m: ListenerRequest) => {
  if (m.type === 'clock') send({ type: 'clock', id: m.id, t: now() });
  else if (m.type === 'report') send({ type: 'report', applied: [...applied] });
  else if (m.type === 'stop') {
    void view.stop().then(() => bus.drain()).finally(() => process.disconnect());
  }
});
send({ type: 'ready' });
