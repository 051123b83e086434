/**
 * Process B of the revocation benchmark: its own bus on NATS and a RevocationView, exactly what an
 * edge in another process keeps. Records when each revocation is applied, on the clock the parent
 * uses too (CLOCK_MONOTONIC through process.hrtime, milliseconds, shared by every process of the machine), and reports
 * over the IPC channel only when asked, so that nothing but the view runs while revocations arrive.
 *
 *   (forked by bench/revocation.ts)   node bench/revocation-listener.ts NATS_URL
 */
import { createBus, connectNatsTransport } from '../bus/index.ts';
import { RevocationView } from '../services/token/revocation/index.ts';

export type ListenerRequest = { type: 'clock'; id: number } | { type: 'report' } | { type: 'stop' };
export type ListenerReply = { type: 'ready' } | { type: 'clock'; id: number; t: number } | { type: 'report'; applied: Array<[string, number]> };

// One clock for both processes: CLOCK_MONOTONIC (process.hrtime on Linux) is the machine's, not the
// process's, so A's send and B's apply are read on the same clock. performance.timeOrigin differs
// per process by up to a millisecond or more (each derives it from the wall clock at its start).
const now = (): number => Number(process.hrtime.bigint()) / 1e6;
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
    void view
      .stop()
      .then(() => bus.drain())
      .finally(() => process.disconnect());
  }
});
send({ type: 'ready' });
