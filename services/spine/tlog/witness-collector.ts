import type { Storage } from '../../../storage/index.ts';
import { readLogTiles, setCheckpointCosigned } from './store.ts';
import {
  consistencyProof,
  cosignatureVerifier,
  nodeReaderFromTiles,
  nodesRead,
  parseNote,
  parseVkey,
  signatureLine,
  tilesOfNodes,
  type NodeReader,
  type NoteVerifier,
} from '../../../core/tlog/index.ts';

type Logger = { info(o: object, m?: string): void; warn(o: object, m?: string): void };

export interface CollectedWitness {
  /** Base URL: `<url>/add-checkpoint` is asked. */
  url: string;
  /** Its cosignature vkey (type 0x04). */
  vkey: string;
}

export interface WitnessCollectorOptions {
  storage: Storage;
  witnesses: readonly CollectedWitness[];
  logger?: Logger;
  /** One add-checkpoint call's limit (default 10 s): a witness that hangs is a witness that lags. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** What the collector says of one witness (the `suite_tlog_witness_*` gauges, docs/WITNESS.md). */
export interface WitnessStatus {
  name: string;
  url: string;
  /** The largest checkpoint size it cosigned for this process; 0 before any. */
  cosignedSize: number;
  /** Whether the last call reached it and was answered as the protocol says. */
  up: boolean;
}

interface Witness {
  url: string;
  name: string;
  verifier: NoteVerifier;
  /** The size it last cosigned, as far as this process knows (learned from a 409 otherwise). */
  known: number;
  cosignedSize: number;
  up: boolean;
  busy: boolean;
  /** The newest checkpoint not yet sent to it: a witness that lags is sent the latest, not each one. */
  wanted: { size: number; note: string } | undefined;
}

/** Checkpoints whose cosignatures are still kept in memory, to append a late witness's line. */
const SIZES_KEPT = 8;

/**
 * Collects C2SP tlog-cosignatures for the log's checkpoints (docs/WITNESS.md): each checkpoint
 * published is sent to every configured witness with `add-checkpoint`, with a consistency proof from
 * the size that witness last cosigned (learned from its 409 when unknown, as tlog-witness intends);
 * each cosignature is verified with the witness's vkey and stored with the checkpoint (the note with
 * every cosignature line appended), which is what the checkpoint route and receipts serve. A witness
 * down or slow delays nothing: the checkpoint is already published, with fewer cosignatures, and
 * the witness is sent the latest checkpoint when it answers again.
 */
export class WitnessCollector {
  readonly #o: WitnessCollectorOptions;
  readonly #witnesses: Witness[];
  /** size → (witness name → cosignature line), for the latest few checkpoints. */
  readonly #lines = new Map<number, { note: string; lines: Map<string, string> }>();
  #writes: Promise<void> = Promise.resolve();
  #running = new Set<Promise<void>>();
  #stopped = false;
  /** Aborts the calls under way at stop: a witness that hangs must not hold the shutdown. */
  readonly #abort = new AbortController();

  constructor(o: WitnessCollectorOptions) {
    this.#o = o;
    this.#witnesses = o.witnesses.map((w) => {
      const v = parseVkey(w.vkey);
      if (typeof v === 'string') throw new TypeError(`witness ${w.url}: ${v}`);
      return {
        url: w.url,
        name: v.name,
        verifier: cosignatureVerifier(v.name, v.publicKey),
        known: 0,
        cosignedSize: 0,
        up: true,
        busy: false,
        wanted: undefined,
      };
    });
  }

  status(): WitnessStatus[] {
    return this.#witnesses.map((w) => ({ name: w.name, url: w.url, cosignedSize: w.cosignedSize, up: w.up }));
  }

  /** A checkpoint was published (the maintainer's `onCheckpoint`): ask every witness, never wait. */
  published(c: { size: number; note: string }): void {
    if (this.#stopped) return;
    this.#lines.set(c.size, { note: c.note, lines: new Map() });
    for (const size of this.#lines.keys()) if (this.#lines.size > SIZES_KEPT) this.#lines.delete(size);
    for (const w of this.#witnesses) {
      w.wanted = c;
      if (!w.busy) this.#track(this.#pump(w));
    }
  }

  /** Resolves once every call under way has ended (tests; stopping). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    await this.#writes;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const w of this.#witnesses) w.wanted = undefined;
    this.#abort.abort();
    await this.settled();
  }

  #track(p: Promise<void>): void {
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }

  async #pump(w: Witness): Promise<void> {
    w.busy = true;
    try {
      while (w.wanted && !this.#stopped) {
        const c = w.wanted;
        w.wanted = undefined;
        try {
          const line = await this.#cosign(w, c);
          w.up = true;
          if (line) await this.#store(c.size, w.name, line);
        } catch (err) {
          if (w.up && !this.#stopped)
            this.#o.logger?.warn(
              { witness: w.name, url: w.url, size: c.size, err: (err as Error).message },
              'execution log: a witness did not cosign; checkpoints go on without its cosignature',
            );
          w.up = false;
        }
      }
    } finally {
      w.busy = false;
    }
  }

  /** Ask `w` to cosign checkpoint `c`: its cosignature line, or undefined when it holds a larger tree already. */
  async #cosign(w: Witness, c: { size: number; note: string }): Promise<string | undefined> {
    // Twice at most: the first call may only teach us the size the witness holds.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (w.known > c.size) return undefined;
      const proof = w.known > 0 && w.known < c.size ? await this.#consistency(w.known, c.size) : [];
      const body = `old ${w.known}\n${proof.map((p) => `${p.toString('base64')}\n`).join('')}\n${c.note}`;
      const res = await (this.#o.fetch ?? fetch)(`${w.url}/add-checkpoint`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#o.timeoutMs ?? 10_000)]),
      });
      const text = await res.text();
      if (res.status === 409 && res.headers.get('content-type') === 'text/x.tlog.size' && /^(0|[1-9][0-9]*)\n$/.test(text)) {
        w.known = Number(text.trim());
        continue;
      }
      if (res.status !== 200) throw new Error(`add-checkpoint answered ${res.status}: ${text.slice(0, 200).trim()}`);
      const line = this.#verified(w, c.note, text);
      w.known = c.size;
      w.cosignedSize = Math.max(w.cosignedSize, c.size);
      return line;
    }
    throw new Error('add-checkpoint answered 409 twice: the witness moved while asked');
  }

  /** The witness's cosignature line among those answered, verified over this checkpoint; throws when there is none. */
  #verified(w: Witness, note: string, answer: string): string {
    const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
    const parsed = parseNote(`${text}\n${answer}`);
    if (typeof parsed === 'string') throw new Error(`add-checkpoint answered what is not a signature line: ${parsed}`);
    const mine = parsed.signatures.find((s) => s.name === w.name && s.keyId === w.verifier.keyId);
    if (!mine || !w.verifier.verify(Buffer.from(text), mine.signature)) throw new Error('add-checkpoint answered no valid cosignature by the configured key');
    return signatureLine(mine).slice(0, -1);
  }

  async #consistency(from: number, to: number): Promise<Buffer[]> {
    const wanted = tilesOfNodes(nodesRead((r: NodeReader) => consistencyProof(from, to, r)));
    const tiles = await readLogTiles(this.#o.storage.pool, wanted);
    return consistencyProof(
      from,
      to,
      nodeReaderFromTiles((level, index) => tiles.get(`${level}/${index}`)),
    );
  }

  /** Store the checkpoint with every cosignature collected so far; one write at a time, so a later one never holds fewer lines. */
  #store(size: number, witness: string, line: string): Promise<void> {
    const held = this.#lines.get(size);
    if (!held) return Promise.resolve();
    held.lines.set(witness, `${line}\n`);
    const cosigned = held.note + [...held.lines.values()].join('');
    this.#writes = this.#writes
      .then(() => setCheckpointCosigned(this.#o.storage.pool, size, cosigned))
      .catch((err: unknown) => {
        this.#o.logger?.warn({ err, size }, 'execution log: cosignatures not stored; the checkpoint is served without them');
      });
    return this.#writes;
  }
}
