/**
 * The command line of `suite verify` said back in its own words (issue 36, item 6): an unknown
 * option with the nearest known one, the receipt and checkpoint modes' own missing pieces, and a
 * vkey given as a file as well as inline, like `--public-key`.
 */
import { readFile, stat } from 'node:fs/promises';
import { closest } from './usage.ts';

const OPTIONS = ['--public-key', '--receipt', '--checkpoint', '--log-vkey', '--witness-vkey', '--quorum', '--help', '-h'];

/** node:util parseArgs's refusal, an unknown option with a did-you-mean instead of Node's own text. */
export function parseRefusal(e: Error & { code?: string }): string {
  const option = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    const near = closest(option, OPTIONS);
    return `unknown option ${option}${near === undefined ? '' : ` (did you mean ${near}?)`}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) return `${option} needs a value`;
  return e.message;
}

/** What the receipt or checkpoint mode lacks, in its own terms; undefined when nothing. */
export function logModeProblem(
  values: {
    receipt?: string | undefined;
    checkpoint?: string | undefined;
    log?: string | undefined;
    'log-vkey'?: string | undefined;
    quorum?: string | undefined;
  },
  positionals: readonly string[],
  pems: readonly string[],
): string | undefined {
  const mode = values.receipt !== undefined ? '--receipt' : values.checkpoint !== undefined ? '--checkpoint' : '--log';
  if ([values.receipt, values.checkpoint, values.log].filter((v) => v !== undefined).length > 1) return 'give one of --receipt, --checkpoint or --log';
  if (positionals.length !== 0) return `${mode} takes its file as its value; drop ${JSON.stringify(positionals[0])}`;
  const missing: string[] = [];
  if (values.receipt !== undefined && pems.length === 0) missing.push('--public-key PEM (the trace key: GET /executions/public-key)');
  if (values['log-vkey'] === undefined) missing.push("--log-vkey VKEY or FILE (the log's key: GET /executions/log/vkey)");
  if (missing.length > 0) return `${mode} needs ${missing.join(' and ')}`;
  if (!/^(0|[1-9][0-9]?)$/.test(values.quorum ?? '0')) return '--quorum must be a whole number from 0 to 99';
  return undefined;
}

/** A vkey given inline (`name+hash+key`) or as a file holding one, as GET /executions/log/vkey answers it. */
async function vkeyOf(given: string, flag: string, err: { write(text: string): unknown }): Promise<string | undefined> {
  const isFile = await stat(given).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isFile) return given;
  try {
    return (await readFile(given, 'utf8')).trim();
  } catch (e) {
    err.write(`suite verify: ${flag} ${given}: ${(e as Error).message}\n`);
    return undefined;
  }
}

export async function vkeysFrom(
  log: string | undefined,
  witnesses: readonly string[],
  err: { write(text: string): unknown },
): Promise<{ log: string | undefined; witnesses: string[] } | undefined> {
  const logVkey = log === undefined ? undefined : await vkeyOf(log, '--log-vkey', err);
  if (log !== undefined && logVkey === undefined) return undefined;
  const out: string[] = [];
  for (const w of witnesses) {
    const v = await vkeyOf(w, '--witness-vkey', err);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return { log: logVkey, witnesses: out };
}
