/**
 * `suite verify FILE --public-key PEM`: checks an export of the execution chain (GET
 * /executions/export) offline, with the chain's own verification (actors/chain ExportVerifier) and
 * the public keys given, nothing else: no configuration, no database, no network. The file is read
 * line by line, in constant memory. Exit status: 0 verified, 1 not verified (the first failing seq
 * and why), 2 the command could not run (usage, a file or a key that cannot be read).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { KeyObject } from 'node:crypto';
import { ed25519PublicKey, ExportVerifier, keyIdOf, type ExportVerification } from '../core/chain/index.ts';
import { VERIFY_LOG_USAGE, verifyLogCommand } from './verify-log.ts';
import { logModeProblem, parseRefusal, vkeysFrom } from './verify-args.ts';

export const VERIFY_USAGE = `usage:
  suite verify FILE --public-key PEM [--public-key PEM ...]

Checks an export of the execution chain (GET /executions/export) offline: every record's content
against its hash, its signature against the public key its keyId names, its place and its link to
the record before, and that the file is complete (its end line). FILE - reads standard input.

  --public-key PEM   an Ed25519 public key (PEM file), as GET /executions/public-key answers it;
                     once per key that signed records of the export (after a key rotation)

Exit status: 0 the export verifies; 1 it does not (the first failing seq and the reason are
printed); 2 the command could not run. See docs/TRACE-FORMAT.md, "Exporting and verifying offline".

${VERIFY_LOG_USAGE}`;

/** Lines longer than this are not records (the largest a record can be is well under it). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

interface Output {
  write(text: string): unknown;
}

export async function verifyCommand(argv: string[], out: Output, err: Output): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'public-key': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        receipt: { type: 'string' },
        checkpoint: { type: 'string' },
        'log-vkey': { type: 'string' },
        'witness-vkey': { type: 'string', multiple: true },
        quorum: { type: 'string' },
        log: { type: 'string' },
        token: { type: 'string' },
        since: { type: 'string', multiple: true },
      },
    });
  } catch (e) {
    err.write(`suite verify: ${parseRefusal(e as Error & { code?: string })}\n${VERIFY_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(`${VERIFY_USAGE}\n`);
    return 0;
  }
  const pems = values['public-key'] ?? [];
  const logMode = values.receipt !== undefined || values.checkpoint !== undefined || values.log !== undefined;
  const problem = logMode
    ? logModeProblem(values, positionals, pems)
    : positionals.length !== 1 || pems.length === 0
      ? 'give one FILE and at least one --public-key'
      : undefined;
  if (problem !== undefined) {
    err.write(`suite verify: ${problem}\n${VERIFY_USAGE}\n`);
    return 2;
  }
  const keys = new Map<string, KeyObject>();
  for (const path of pems) {
    try {
      const key = ed25519PublicKey(await readFile(path, 'utf8'));
      keys.set(keyIdOf(key), key);
    } catch (e) {
      err.write(`suite verify: ${path}: not a readable Ed25519 public key (${(e as Error).message})\n`);
      return 2;
    }
  }
  if (logMode) {
    const vkeys = await vkeysFrom(values['log-vkey'], values['witness-vkey'] ?? [], err);
    if (!vkeys) return 2;
    return verifyLogCommand(
      {
        receipt: values.receipt,
        checkpoint: values.checkpoint,
        log: values.log,
        token: values.token,
        since: values.since ?? [],
        logVkey: vkeys.log,
        witnessVkeys: vkeys.witnesses,
        quorum: Number(values.quorum ?? '0'),
        keys,
      },
      out,
      err,
    );
  }
  const file = positionals[0] as string;
  const verifier = new ExportVerifier((keyId) => keys.get(keyId));
  try {
    await feedLines(file === '-' ? process.stdin : createReadStream(file), verifier);
  } catch (e) {
    err.write(`suite verify: ${file}: ${(e as Error).message}\n`);
    return 2;
  }
  const result = verifier.finish();
  out.write(report(result, [...keys.keys()]));
  return result.valid ? 0 : 1;
}

/** Hands the verifier each line's bytes as they are in the file (no decoding: they are what was hashed). */
async function feedLines(input: AsyncIterable<Buffer>, verifier: ExportVerifier): Promise<void> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let at = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, at)) {
      // The first failure is the verdict: the rest of the file is not read (leaving the loop closes it).
      if (!verifier.push(data.subarray(at, nl))) return;
      at = nl + 1;
    }
    carry = Buffer.from(data.subarray(at));
    if (carry.length > MAX_LINE_BYTES) {
      verifier.rejectLine(`malformed: a line of more than ${MAX_LINE_BYTES} bytes`);
      return;
    }
  }
  if (carry.length > 0) verifier.rejectLine('the file ends in the middle of a line (cut short?)');
}

function report(r: ExportVerification, given: string[]): string {
  const lines: string[] = [];
  const range = r.range
    ? `seq ${r.range.from} to ${r.range.to}${r.range.tenantId !== null ? `, tenant ${r.range.tenantId}'s records only` : ''}`
    : 'bare record lines, no header';
  if (r.valid) {
    lines.push(`verified: ${r.records} record(s) of the execution chain (${range})`);
    if (r.lastHash !== undefined) lines.push(`last record: seq ${r.lastSeq}, hash ${r.lastHash}`);
  } else {
    const where = r.brokenAt !== undefined ? `seq ${r.brokenAt} (line ${r.line})` : `line ${r.line}`;
    lines.push(`NOT verified: ${where}: ${r.reason}`);
    if (r.reason?.startsWith('no public key for keyId'))
      lines.push(`  (keys given: ${given.join(', ')}; fetch others with GET /executions/public-key?keyId=...)`);
    lines.push(`checked before the failure: ${r.records} record(s)${r.records > 0 ? `, seq ${r.firstSeq} to ${r.lastSeq}` : ''} (${range})`);
  }
  if (r.pruned !== undefined)
    lines.push(
      `${r.pruned} record(s) pruned under retention taken where they stood: place, links and signature checked, content gone (docs/TRACE-FORMAT.md, "Retention")`,
    );
  for (const [keyId, n] of Object.entries(r.keys)) lines.push(`signed by ${keyId}: ${n} record(s)`);
  for (const note of r.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}
