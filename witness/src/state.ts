import { mkdir, open, readFile, rename, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WitnessedLog } from '../../core/tlog/index.ts';

/**
 * A witness's durable state (docs/WITNESS.md): per log origin, the size and root it last cosigned,
 * in one JSON file replaced atomically (written beside, fsynced, renamed over, the folder fsynced),
 * so that a cosignature is never returned before the state that forbids contradicting it is on
 * disk. A file rather than a database: the witness must not share the log's database (whoever runs
 * the log could roll it back), and one small file per witness needs no server of its own.
 *
 * Split views and forks are kept as evidence: one text file each under `evidence/`, the reason
 * then the note exactly as received, for a person to read and forward.
 */
const STATE_FILE = 'state.json';
const EVIDENCE_DIR = 'evidence';

interface StateFile {
  format: 'suite-witness-state/v1';
  logs: Record<string, WitnessedLog>;
}

export class WitnessState {
  readonly #dir: string;
  readonly #logs: Map<string, WitnessedLog>;

  private constructor(dir: string, logs: Map<string, WitnessedLog>) {
    this.#dir = dir;
    this.#logs = logs;
  }

  /** Open (or create) the state under `dir`; a state file that does not parse stops the witness. */
  static async open(dir: string): Promise<WitnessState> {
    await mkdir(join(dir, EVIDENCE_DIR), { recursive: true });
    let text: string | undefined;
    try {
      text = await readFile(join(dir, STATE_FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return new WitnessState(dir, text === undefined ? new Map() : parseState(text, join(dir, STATE_FILE)));
  }

  /** The last checkpoint cosigned for `origin`, if any. */
  known(origin: string): WitnessedLog | undefined {
    return this.#logs.get(origin);
  }

  /** Every log this witness has cosigned, with its last size and root. */
  entries(): Array<[string, WitnessedLog]> {
    return [...this.#logs];
  }

  /** Make `log` the last cosigned checkpoint of `origin`, durably: resolves once it is on disk. */
  async advance(origin: string, log: WitnessedLog): Promise<void> {
    const next = new Map(this.#logs).set(origin, log);
    const file: StateFile = { format: 'suite-witness-state/v1', logs: Object.fromEntries(next) };
    await writeDurably(this.#dir, STATE_FILE, `${JSON.stringify(file, null, 2)}\n`);
    this.#logs.set(origin, log);
  }

  /** Keep a contradicting checkpoint for good; resolves with the evidence file's path once it is on disk. */
  async keepEvidence(e: { origin: string; note: string; reason: string }, at: Date): Promise<string> {
    const name = `${at.toISOString().replaceAll(':', '-')}-${e.origin.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}.txt`;
    const text = `A checkpoint this witness refused, kept as evidence.\nreceived: ${at.toISOString()}\norigin: ${e.origin}\nreason: ${e.reason}\n\nThe signed checkpoint as received:\n\n${e.note}`;
    await writeDurably(join(this.#dir, EVIDENCE_DIR), name, text);
    return join(this.#dir, EVIDENCE_DIR, name);
  }

  /** The evidence files kept so far, oldest first. */
  async evidence(): Promise<string[]> {
    return (await readdir(join(this.#dir, EVIDENCE_DIR)))
      .filter((f) => f.endsWith('.txt'))
      .sort()
      .map((f) => join(this.#dir, EVIDENCE_DIR, f));
  }
}

function parseState(text: string, path: string): Map<string, WitnessedLog> {
  const broken = (why: string) => new Error(`${path}: ${why}; the witness will not start on a state it cannot read (it could cosign what it refused before)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw broken('not JSON');
  }
  const file = parsed as Partial<StateFile>;
  if (file.format !== 'suite-witness-state/v1' || typeof file.logs !== 'object' || file.logs === null)
    throw broken('not a witness state (format suite-witness-state/v1)');
  const logs = new Map<string, WitnessedLog>();
  for (const [origin, log] of Object.entries(file.logs)) {
    if (!Number.isSafeInteger(log?.size) || log.size < 0 || typeof log.root !== 'string') throw broken(`the entry of ${origin} is not a size and a root`);
    logs.set(origin, { size: log.size, root: log.root });
  }
  return logs;
}

/** Write `name` in `dir` so that after a crash it holds either its old or its new content, never a mix. */
async function writeDurably(dir: string, name: string, content: string): Promise<void> {
  const temp = join(dir, `.${name}.${process.pid}.tmp`);
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(content);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, join(dir, name));
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
