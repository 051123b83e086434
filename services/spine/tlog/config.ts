import { parseVkey, SIG_COSIGNATURE_V1 } from '../../../core/tlog/index.ts';
import type { ConfigReader } from '../../../config/index.ts';

/** The transparency log's part of the spine's configuration. */
export interface TlogConfig {
  /**
   * `SUITE_TLOG_ORIGIN`: the execution log's checkpoint origin and key name (docs/TRACE-FORMAT.md,
   * "The transparency log"); a schema-less URL, ideally the public prefix of `/executions/log`.
   */
  readonly tlogOrigin: string;
  /** `SUITE_TLOG_WITNESSES`: the witnesses asked to cosign the log's checkpoints. */
  readonly tlogWitnesses: readonly TlogWitnessConfig[];
}

export function tlogConfig({ str, fail }: ConfigReader): TlogConfig {
  return { tlogOrigin: tlogOrigin(str('SUITE_TLOG_ORIGIN'), fail), tlogWitnesses: loadTlogWitnesses(str('SUITE_TLOG_WITNESSES'), fail) };
}

/** A checkpoint origin doubles as a note key name: no spaces, no `+`, not empty (C2SP signed-note). */
function tlogOrigin(value: string | undefined, fail: Fail): string {
  if (value === undefined) return 'agent-suite.local/executions/log';
  if (!/^[^\s+]{1,200}$/u.test(value))
    throw fail('SUITE_TLOG_ORIGIN', 'must be 1 to 200 characters with no spaces and no "+" (e.g. audit.example.com/executions/log)');
  return value;
}

/**
 * `SUITE_TLOG_WITNESSES`: the witnesses the execution log asks to cosign its checkpoints
 * (docs/WITNESS.md): comma-separated entries `<URL> <vkey>`, the witness's base URL (its
 * `/add-checkpoint` is under it) and its cosignature vkey (type 0x04), e.g.
 * `http://127.0.0.1:8086 witness.example/w1+1a2b3c4d+BE...`. Neither a URL nor a vkey holds a
 * space; a witness named twice would count twice toward nothing, so it is refused.
 */
export const WITNESSES_VARIABLE = 'SUITE_TLOG_WITNESSES';

export interface TlogWitnessConfig {
  /** Base URL, without a trailing slash. */
  readonly url: string;
  readonly vkey: string;
  /** The witness's key name (from its vkey). */
  readonly name: string;
}

type Fail = (variable: string, message: string) => Error;

export function loadTlogWitnesses(raw: string | undefined, fail: Fail): readonly TlogWitnessConfig[] {
  if (raw === undefined || raw.trim() === '') return [];
  const out: TlogWitnessConfig[] = [];
  for (const [i, entry] of raw.split(',').entries()) {
    const parts = entry.trim().split(/\s+/);
    const at = `entry ${i + 1}`;
    if (parts.length !== 2) throw fail(WITNESSES_VARIABLE, `${at}: each entry is "<URL> <vkey>", entries separated by commas`);
    const [url, vkey] = parts as [string, string];
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw fail(WITNESSES_VARIABLE, `${at}: "${url}" is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail(WITNESSES_VARIABLE, `${at}: a witness URL is http or https`);
    const key = parseVkey(vkey);
    if (typeof key === 'string') throw fail(WITNESSES_VARIABLE, `${at}: ${key}`);
    if (key.type !== SIG_COSIGNATURE_V1) throw fail(WITNESSES_VARIABLE, `${at}: a witness vkey is a cosignature/v1 key (type 0x04)`);
    if (out.some((w) => w.name === key.name)) throw fail(WITNESSES_VARIABLE, `${at}: witness ${key.name} is named twice`);
    out.push(Object.freeze({ url: url.replace(/\/+$/, ''), vkey, name: key.name }));
  }
  return Object.freeze(out);
}
