/**
 * What bounds appends on this machine: `POST /executions` on the suite beside the least an append
 * server can do and still keep what issue 3 asks (bench/ceiling-server.ts: the suite's validation,
 * hashing, signing thread, chain writer and tables, without the bus, the actors and the rest), with
 * and without the audit entry of each allow. Same body, same load (autocannon in this process, 50
 * connections), each on a throw-away database of the local Postgres, in alternation, each judged
 * against one core's signing rate measured just before and just after it.
 *
 *   node bench/append-ceiling.ts [--seconds 8] [--warmup 3] [--rounds 2]
 *
 * Targets only 127.0.0.1: the servers it starts and the local Postgres.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { cleanEnv, killAllChildren, spawnNode } from './child.ts';
import { APPEND_TARGET_OF_SIGN, appendCpuLine, benchAppends, loadAppends, type AppendResult } from './executions.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { createTestDatabase } from '../testing/storage.ts';

type Variant = 'suite' | 'ceiling' | 'ceiling, no audit entry';
const VARIANTS: readonly Variant[] = ['suite', 'ceiling', 'ceiling, no audit entry'];

async function ceilingAppends(audit: boolean, o: { seconds: number; warmup: number }): Promise<AppendResult> {
  const db = await createTestDatabase();
  const token = randomBytes(24).toString('base64url');
  const child = spawnNode('bench/ceiling-server.ts', [], {
    env: cleanEnv({ CEILING_DATABASE_URL: db.url, CEILING_TOKEN: token, CEILING_AUDIT: audit ? '1' : '0' }),
  });
  try {
    const base = (await child.waitFor(/^ceiling (http:\/\/\S+)/m, 60_000))[1] as string;
    const name = `ceiling server${audit ? '' : ', no audit entry'} (c=50, postgres)`;
    return await loadAppends({ name, base, token, pid: child.proc.pid ?? 0 }, o);
  } finally {
    await child.stop(30_000);
    await db.drop();
  }
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { seconds: { type: 'string', default: '8' }, warmup: { type: 'string', default: '3' }, rounds: { type: 'string', default: '2' } },
  });
  const o = { seconds: Number(values.seconds), warmup: Number(values.warmup) };
  const rounds = Number(values.rounds);
  const watchdog = setTimeout(
    () => {
      process.stderr.write('append-ceiling: overstayed; ending every child process\n');
      killAllChildren();
      process.exit(2);
    },
    (rounds * VARIANTS.length * (o.seconds + o.warmup + 40) + 60) * 1000,
  );
  watchdog.unref();
  const machine = await describeMachine();
  const rows: string[] = [];
  const notes: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const v of VARIANTS) {
      process.stderr.write(`append-ceiling: round ${round}, ${v}...\n`);
      const r = v === 'suite' ? await benchAppends('postgres', o) : await ceilingAppends(v === 'ceiling', o);
      const share = r.reqPerSec / r.rawSign.mean;
      rows.push(
        `| ${round} | ${v} | ${fmt(r.reqPerSec)} | ${fmt(share * 100, 1)}% (of ${fmt(r.rawSign.mean)}/s) | ${r.p50Ms} / ${r.p99Ms} ms | ${r.non2xx + r.errors + r.timeouts} |`,
      );
      notes.push(`- round ${round}, ${v}: ${appendCpuLine(r, machine.cores)}`);
    }
  }
  process.stdout.write(
    [
      `### Appends: the suite beside the ceiling server (\`node bench/append-ceiling.ts\`)`,
      '',
      machineMarkdown(machine),
      '',
      `50 connections, ${o.warmup} s warm-up then ${o.seconds} s measured, Postgres (a throw-away database each). Target: ${APPEND_TARGET_OF_SIGN * 100}% of one core's signing rate.`,
      '',
      "| round | server | appends/s | of one core's signing | p50 / p99 | failed |",
      '|---:|---|---:|---:|---|---:|',
      ...rows,
      '',
      ...notes,
      '',
    ].join('\n'),
  );
  process.exit(0);
}
