/**
 * A witness's cost (docs/PERFORMANCE.md, "Witnesses"): `suite witness` as its own process, sent
 * add-checkpoint requests one after another (each a checkpoint one leaf larger, with its
 * consistency proof from the size cosigned last, as the log sends them), against `GET /vkey` on the
 * same process in the same run as the baseline (HTTP alone: no signature check, proof, cosignature
 * or fsync). Rate, latency p50/p99 and the witness process's CPU per answered request for each.
 * Bounded: at most --count requests or --seconds per phase; the witness binds 127.0.0.1 and is
 * stopped at the end.
 *
 *   node bench/witness.ts [--seconds 5] [--count 3000]
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { consistencyProof, logKey } from '../core/tlog/index.ts';
import { addCheckpointBody, tlogHistory } from '../testing/tlog-history.ts';
import { startWitnessProcess } from '../testing/witness-process.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { observeCpu } from './cpu.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, count: { type: 'string', default: '3000' } } });
const seconds = Number(values.seconds);
const count = Number(values.count);
const ORIGIN = 'bench.test/log';
const log = logKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const history = tlogHistory(ORIGIN, log, 'bench', count + 1);

process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
const dir = await mkdtemp(join(tmpdir(), 'bench-witness-'));
const w = await startWitnessProcess({ name: 'witness', dataDir: dir, keyName: 'bench.test/w1', logVkeys: [log.vkey] });
const pid = w.child.pid as number;

async function phase(name: string, request: (i: number) => () => Promise<Response>): Promise<void> {
  const times: number[] = [];
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const seen = await observeCpu(pid, async () => {
    for (let i = 1; i <= count && performance.now() < deadline; i += 1) {
      // The body (proof, signed checkpoint) is made before the clock starts: the latency is the witness's.
      const send = request(i);
      const t0 = performance.now();
      const res = await send();
      await res.text();
      if (res.status !== 200) throw new Error(`${name} ${i}: ${res.status}`);
      times.push(performance.now() - t0);
    }
  });
  const elapsed = (performance.now() - start) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  const serverPct = Object.values(seen.server).reduce((a, b) => a + b, 0);
  const cpuMsPerRequest = ((serverPct / 100) * elapsed * 1000) / times.length;
  console.log(
    `| ${name} | ${times.length} | ${(times.length / elapsed).toFixed(0)}/s | ${at(0.5)} ms | ${at(0.99)} ms | ${cpuMsPerRequest.toFixed(3)} ms | ${seen.foreignCorePct}% |`,
  );
}

console.log(
  '| phase (one request at a time) | answered | rate (requests / wall time of the phase) | p50 | p99 | witness CPU per answered request | other processes (% of a core) |',
);
console.log('|---|---|---|---|---|---|---|');
await phase('GET /vkey (baseline: HTTP only)', () => () => fetch(`${w.url}/vkey`));
await phase('POST /add-checkpoint (verify, proof, cosign, fsync)', (i) => {
  const body = addCheckpointBody(i - 1, i > 1 ? consistencyProof(i - 1, i, history.read) : [], history.checkpoint(i));
  return () => fetch(`${w.url}/add-checkpoint`, { method: 'POST', body });
});
await w.child.stop();
await rm(dir, { recursive: true, force: true });
