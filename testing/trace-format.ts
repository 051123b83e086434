import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GENESIS_HASH, hashCanonical, executionHash, executionExportLine, exportEndLine, exportHeaderLine, ExportVerifier } from '../core/chain/index.ts';
import type { ExecutionFields, ExecutionRecord, TraceSigner, ExportRange, KeyLookup, ExportVerification } from '../core/chain/index.ts';

/**
 * Test-only: run the shell steps of docs/TRACE-FORMAT.md exactly as written, with the real `sh`,
 * `sha256sum` and `openssl` binaries, so the document cannot drift from what verifies.
 */
const DOC = new URL('../docs/TRACE-FORMAT.md', import.meta.url);

export function traceFormatDoc(): string {
  return readFileSync(DOC, 'utf8');
}

/** The fenced block that follows `<!-- <marker> -->` in the document. */
export function documentedBlock(marker: string): string {
  const doc = traceFormatDoc();
  const at = doc.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`docs/TRACE-FORMAT.md has no <!-- ${marker} --> block`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!match) throw new Error(`no fenced block after <!-- ${marker} -->`);
  return match[1] as string;
}

export interface ShellResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Write `files` (relative path -> content) into a fresh folder and run the documented script there. */
export function runDocumentedScript(name: 'verify-record' | 'verify-chain', files: Record<string, string>): ShellResult {
  const script = documentedBlock(`script:${name}`);
  const dir = mkdtempSync(join(tmpdir(), 'suite-trace-'));
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const r = spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    if (r.error) throw r.error;
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Test-only: a valid chain of `n` varied execution records signed by `signer`; `tenantOf` names each one's tenant. */
export function signedChain(signer: TraceSigner, n: number, tenantOf: (seq: number) => string | null = () => null): ExecutionRecord[] {
  const out: ExecutionRecord[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const f: ExecutionFields = {
      seq: i,
      id: `exec_${i.toString(16).padStart(32, '0')}`,
      timestamp: new Date(1_800_000_000_000 + i).toISOString(),
      subject: `agent-${i % 3}`,
      scope: ['crm:write'],
      module: 'crm',
      action: 'update',
      outcome: i % 4 ? 'success' : 'failure',
      inputHash: hashCanonical({ i }),
      outputHash: i % 2 ? hashCanonical({ o: i }) : null,
      cost: i % 5 ? null : { amount: 120, currency: 'EUR', source: 'provider-invoice' },
      governance: null,
      attested: { jti: null, sub: 'agent', scope: ['execution:record'], proven: false, tenantId: tenantOf(i) },
      prevHash: prev,
      keyId: signer.keyId,
    };
    const hash = executionHash(f);
    out.push({ ...f, hash, signature: signer.sign(hash) });
    prev = hash;
  }
  return out;
}

/** Test-only: the export file of `records` as GET /executions/export writes it for `range`. */
export function exportFile(records: readonly ExecutionRecord[], range: ExportRange): string {
  return [exportHeaderLine(range), ...records.map(executionExportLine), exportEndLine(records.length)].map((l) => `${l}\n`).join('');
}

/** Test-only: verify an export held in a string, line by line as `suite verify` reads a file. */
export function verifyExportText(text: string, keys: KeyLookup): ExportVerification {
  const v = new ExportVerifier(keys);
  const lines = text.split('\n');
  const tail = lines.pop() as string;
  for (const line of lines) if (!v.push(Buffer.from(line))) break;
  if (tail !== '') v.rejectLine('the file ends in the middle of a line (cut short?)');
  return v.finish();
}
