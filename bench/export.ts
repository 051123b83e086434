/**
 * GET /executions/export of a long chain, piped straight into `suite verify -` (no file on disk):
 * how fast the pair goes, and the peak resident memory of the suite's process (and of its PGlite
 * child), which must not grow with the chain (docs/PERFORMANCE.md, "Export").
 *
 *   node bench/export.ts [--records 1000000] [--storages postgres,pglite]
 *
 * The chain is written straight into the storage by bench/chain-fill.ts (valid records signed with a
 * published key), then the suite starts on it (`suite start`, memory bus) and the export streams.
 */
import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mint } from './api.ts';
import { REPO_ROOT } from './child.ts';
import { fillChainAt, place, rssMb, startSuite, verifyStoragesFrom, type Backend } from './executions.ts';
import { describeMachine, machineMarkdown } from './machine.ts';

export interface ExportResult {
  backend: Backend;
  records: number;
  fillSeconds: number;
  seconds: number;
  bytes: number;
  idleServerMb: number;
  peakServerMb: number;
  peakChildrenMb: number;
  peakVerifierMb: number;
  verifyOutput: string;
}

export async function benchExport(backend: Backend, records: number): Promise<ExportResult> {
  const where = await place(backend);
  try {
    const { fillSeconds, key } = await fillChainAt(where, records);
    const pemFile = join(where.dataDir, 'export-bench.pub.pem');
    const suite = await startSuite(where);
    try {
      await writeFile(pemFile, createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString());
      const pid = suite.child.proc.pid ?? 0;
      const { token } = await mint(suite.base, suite.adminKey, 'bench-auditor', ['execution:read']);
      const idleServerMb = rssMb(pid).server;
      const verifier = spawn(process.execPath, ['cli/suite.ts', 'verify', '-', '--public-key', pemFile], {
        cwd: REPO_ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let verifyOutput = '';
      verifier.stdout.setEncoding('utf8').on('data', (d: string) => {
        verifyOutput += d;
      });
      const verified = new Promise<number>((done) => verifier.once('exit', (code) => done(code ?? -1)));
      let peak = { server: 0, children: 0, verifier: 0 };
      const sampler = setInterval(() => {
        const m = rssMb(pid);
        const v = rssMb(verifier.pid ?? 0).server;
        peak = { server: Math.max(peak.server, m.server), children: Math.max(peak.children, m.children), verifier: Math.max(peak.verifier, v) };
      }, 100);
      const s = performance.now();
      let bytes = 0;
      await new Promise<void>((done, fail) => {
        httpGet(`${suite.base}/executions/export`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
          if (res.statusCode !== 200) return fail(new Error(`export answered ${res.statusCode}`));
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.pipe(verifier.stdin);
          res.once('end', () => done());
          res.once('error', fail);
        }).once('error', fail);
      });
      const code = await verified;
      const seconds = (performance.now() - s) / 1000;
      clearInterval(sampler);
      if (code !== 0) throw new Error(`suite verify exited ${code}:\n${verifyOutput}`);
      return {
        backend,
        records,
        fillSeconds,
        seconds,
        bytes,
        idleServerMb,
        peakServerMb: peak.server,
        peakChildrenMb: peak.children,
        peakVerifierMb: peak.verifier,
        verifyOutput,
      };
    } finally {
      await suite.stop();
    }
  } finally {
    await where.dispose();
  }
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

export function exportMarkdown(rows: readonly ExportResult[]): string {
  const lines = [
    '| export piped into `suite verify -` | records | time | records/s | MB/s | suite process peak RSS (idle before) | embedded database processes peak RSS | `suite verify` peak RSS |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.records.toLocaleString('en-US')} | ${fmt(r.seconds)} s | ${fmt(r.records / r.seconds)} | ${fmt(r.bytes / 1e6 / r.seconds)} | ${fmt(r.peakServerMb)} MB (${fmt(r.idleServerMb)}) | ${r.backend === 'embedded' ? `${fmt(r.peakChildrenMb)} MB` : '—'} | ${fmt(r.peakVerifierMb)} MB |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { records: { type: 'string', default: '1000000' }, storages: { type: 'string', default: 'postgres,pglite' } },
  });
  process.stdout.write(`${machineMarkdown(await describeMachine())}\n\n`);
  const rows: ExportResult[] = [];
  for (const backend of verifyStoragesFrom(values.storages)) {
    const r = await benchExport(backend, Number(values.records));
    process.stderr.write(`${backend}: ${r.records} records filled in ${fmt(r.fillSeconds)} s; suite verify said:\n${r.verifyOutput}`);
    rows.push(r);
  }
  process.stdout.write(`${exportMarkdown(rows)}\n`);
}
