/**
 * What making the audit entry of an answered decision durable costs `POST /auth/token/validate`
 * (docs/DECISIONS.md, "Audit entries of answered decisions"). Two embedded suites
 * (bench/audit-durability-server.ts) side by side, rounds alternating between three modes, so all
 * see the same machine load:
 *
 *   unawaited   the earlier behaviour: the answer leaves at once, the entry is committed later
 *   journal     the answer waits for the entry's sync to the process's local journal
 *   commit      (a suite without a data folder, so without a journal) the answer waits for the
 *               entry's commit to the audit chain in Postgres
 *
 *   node bench/audit-durability.ts [--rounds 9] [--seconds 4] [--connections 32]
 *
 * Per round: requests/s, p50 and p99 (autocannon), and the suite's CPU per request (µs of CPU of
 * the suite process and its children, its Postgres among them, divided by the requests answered).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callJson, mint } from './api.ts';
import { cleanEnv, spawnNode, type Child } from './child.ts';
import { waitIdle } from './cpu.ts';
import { measure, type LoadSettings } from './load.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '9' }, seconds: { type: 'string', default: '4' }, connections: { type: 'string', default: '32' } },
});
const settings: LoadSettings = {
  connections: Number(values.connections),
  pipelining: 1,
  warmupSeconds: 1,
  seconds: Number(values.seconds),
  attempts: 1,
  foreignLimitPct: 1000,
};
const PORTS = ['TOKEN', 'SCHEDULER', 'BENCH', 'CONNECTOR', 'TRUST', 'DASHBOARD'].map((s) => [`SUITE_${s}_PORT`, '0']);

interface Server {
  child: Child;
  base: string;
  token: string;
  flips: number;
  mode: string;
}

async function startServer(dir: string, journal: 'journal' | 'no-journal'): Promise<Server> {
  const child = spawnNode('bench/audit-durability-server.ts', [join(dir, journal), journal], {
    env: cleanEnv({ SUITE_LOG_LEVEL: 'warn', SUITE_RATE_LIMIT_MAX: '100000000', SUITE_HOST: '127.0.0.1', ...Object.fromEntries(PORTS) }),
  });
  const port = (await child.waitFor(/listening (\d+)/, 90_000))[1];
  const base = `http://127.0.0.1:${port}`;
  const { adminKey } = JSON.parse(await readFile(join(dir, journal, 'secrets.json'), 'utf8')) as { adminKey: string };
  const { token } = await mint(base, adminKey, 'bench-agent', ['auth:token:validate', 'audit:read']);
  const check = await callJson(`${base}/auth/token/validate`, { headers: { authorization: `Bearer ${token}` }, body: { token, requiredScope: 'audit:read' } });
  if (check.status !== 200) throw new Error(`validate answered ${check.status}`);
  return { child, base, token, flips: 0, mode: 'durable' };
}

/** Flip the server's switch (SIGUSR2) until it is in `want` ('durable' or 'unawaited'). */
async function setMode(s: Server, want: string): Promise<void> {
  if (s.mode === want) return;
  process.kill(s.child.proc.pid ?? 0, 'SIGUSR2');
  await s.child.waitFor(new RegExp(`flip ${++s.flips} mode ${want}\\n`), 5_000);
  s.mode = want;
}

const dir = await mkdtemp(join(tmpdir(), 'suite-audit-bench-'));
const servers: Server[] = [];
try {
  const withJournal = await startServer(dir, 'journal');
  servers.push(withJournal);
  const withoutJournal = await startServer(dir, 'no-journal');
  servers.push(withoutJournal);
  const modes = [
    { name: 'unawaited', server: withJournal, switch: 'unawaited' },
    { name: 'journal', server: withJournal, switch: 'durable' },
    { name: 'commit', server: withoutJournal, switch: 'durable' },
  ];
  const rows: string[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const m = modes[round % modes.length] as (typeof modes)[number];
    await setMode(m.server, m.switch);
    // Each round starts on idle suites: entries an unawaited round left queued are committed first.
    for (const s of servers) await waitIdle(s.child.proc.pid ?? 0, 60_000);
    const pid = m.server.child.proc.pid ?? 0;
    const r = await measure(
      {
        name: m.name,
        url: `${m.server.base}/auth/token/validate`,
        method: 'POST',
        headers: { authorization: `Bearer ${m.server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token: m.server.token, requiredScope: 'audit:read' }),
      },
      settings,
      pid,
    );
    const serverCorePct = Object.values(r.serverThreads).reduce((a, b) => a + b, 0);
    const cpuUsPerReq = r.reqPerSec > 0 ? ((serverCorePct / 100) * 1e6) / r.reqPerSec : Number.NaN;
    const load = execFileSync('uptime')
      .toString()
      .trim()
      .replace(/.*load average: /, '');
    rows.push(
      `| ${round + 1} | ${m.name} | ${r.reqPerSec.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${cpuUsPerReq.toFixed(0)} | ${r.non2xx} | ${r.foreignCorePct.toFixed(0)} | ${load} |`,
    );
    process.stdout.write(`${rows[rows.length - 1]}\n`);
  }
  process.stdout.write(
    [
      '',
      `${settings.connections} connections, ${settings.seconds} s per round`,
      '',
      '| round | mode | req/s | p50 ms | p99 ms | suite CPU µs/req | non-2xx | other processes, % core | load (1/5/15 min) |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '', // the last line's newline
    ].join('\n'),
  );
} finally {
  for (const s of servers) await s.child.stop();
  await rm(dir, { recursive: true, force: true });
}
