/**
 * The bus on its own: CPU per request of `suite.executions.record` and its reply (the append bench's
 * body, a signed record), the suite's largest message, over the memory transport (the embedded
 * default) and, with `--nats-url`, over NATS. No HTTP and no database: what the typed bus itself
 * costs (encoding, validation at both ends, the transport), with 1 and with 50 requests in flight.
 *
 *   node bench/bus.ts [--requests 40000] [--rounds 2] [--nats-url nats://127.0.0.1:4222]
 *
 * A figure of this process alone, so it is steadier than the HTTP benches on a machine whose speed
 * drifts: compare two versions of the bus by running this on each, in turn.
 */
import { parseArgs } from 'node:util';
import { createBus, createMemoryNetwork, connectNatsTransport, type Bus, type Transport } from '../bus/index.ts';
import { subjects } from '../bus/index.ts';
import { hashCanonical } from '../core/chain/index.ts';
import { APPEND_BODY } from './executions.ts';
import { describeMachine, machineMarkdown } from './machine.ts';

const HASH = 'a'.repeat(64);
/** What the edge sends the writer for APPEND_BODY: its input and output as their hashes. */
const { input, output, ...claimed } = APPEND_BODY;
const CLAIM = { ...claimed, inputHash: hashCanonical(input), outputHash: hashCanonical(output) };
const ATTESTED = { jti: 'b2c3d4e5-0000-4000-8000-000000000000', sub: 'bench-agent', scope: ['execution:record'], proven: false, tenantId: null };
const RECORD = {
  seq: 1,
  id: `exec_${'b'.repeat(32)}`,
  timestamp: new Date(0).toISOString(),
  ...CLAIM,
  attested: ATTESTED,
  prevHash: HASH,
  keyId: 'ed25519-0123456789abcdef',
  hash: HASH,
  signature: `${'c'.repeat(86)}==`,
};

interface Row {
  transport: string;
  inflight: number;
  cpuMicros: number;
  wallMicros: number;
}

/** `requests` requests with `inflight` under way at once; CPU and wall time per request. */
async function measure(bus: Bus, requests: number, inflight: number): Promise<{ cpuMicros: number; wallMicros: number }> {
  const data = { claim: CLAIM, attested: ATTESTED, timestamp: new Date().toISOString() };
  let sent = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (sent++ < requests) {
        const r = await bus.request(subjects.executionsRecord, data);
        if (!r.ok) throw new Error(`request failed: ${JSON.stringify(r.error)}`);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuMicros: (used.user + used.system) / requests, wallMicros: ((performance.now() - started) * 1000) / requests };
}

async function busOver(transport: Transport): Promise<Bus> {
  const bus = createBus(transport);
  bus.serve(subjects.executionsRecord, async () => ({ ok: true, value: { record: RECORD, replayed: false } }));
  await bus.flush();
  return bus;
}

export async function runBusBench(o: { requests: number; rounds: number; natsUrl?: string | undefined }): Promise<Row[]> {
  const transports: Array<[string, () => Promise<Transport>]> = [['memory', async () => createMemoryNetwork().connect()]];
  if (o.natsUrl) transports.push(['nats', () => connectNatsTransport({ servers: o.natsUrl as string, name: 'bench-bus' })]);
  const rows: Row[] = [];
  for (const [name, open] of transports) {
    const bus = await busOver(await open());
    try {
      // The first round warms the code up; each later round is reported.
      await measure(bus, Math.min(o.requests, 5000), 50);
      for (let round = 0; round < o.rounds; round++) {
        for (const inflight of [1, 50]) rows.push({ transport: name, inflight, ...(await measure(bus, o.requests, inflight)) });
      }
    } finally {
      await bus.drain();
    }
  }
  return rows;
}

export function busMarkdown(rows: readonly Row[], requests: number): string {
  const lines = [
    `\`suite.executions.record\` and its reply (the append bench's body, a signed record), ${requests.toLocaleString('en-US')} requests per row, CPU of this process.`,
    '',
    '| transport | in flight | CPU µs per request | wall µs per request |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.transport} | ${r.inflight} | ${r.cpuMicros.toFixed(1)} | ${r.wallMicros.toFixed(1)} |`),
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { requests: { type: 'string', default: '40000' }, rounds: { type: 'string', default: '2' }, 'nats-url': { type: 'string' } },
  });
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(rounds) || rounds < 1)
    throw new Error('--requests and --rounds must be positive integers');
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  const rows = await runBusBench({ requests, rounds, natsUrl: values['nats-url'] });
  process.stdout.write(`### The bus alone\n\n${busMarkdown(rows, requests)}\n`);
}
