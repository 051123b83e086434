import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Test-only: run the shell steps of docs/TRACE-FORMAT.md exactly as written, with the real `sh`,
 * `sha256sum` and `openssl` binaries, so the document cannot drift from what verifies.
 */
const DOC = new URL('../../docs/TRACE-FORMAT.md', import.meta.url);

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
