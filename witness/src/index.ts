/**
 * `suite witness` (docs/WITNESS.md): a C2SP tlog-witness of its own, apart from the suite's
 * services: a package of its own (witness/package.json), whose code imports nothing of the suite but
 * pure core/tlog. It is not in services/index.ts's list on purpose: a witness is worth something only when
 * it runs apart from the log it watches (another process, key and disk, ideally another operator),
 * so no `suite start` role runs one.
 */
import { createPublicKey } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ed25519Cosigner,
  ed25519NoteVerifier,
  formatVkey,
  parseVkey,
  rawEd25519PublicKey,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  type NoteVerifier,
} from '../../core/tlog/index.ts';
import { witnessKey } from './key.ts';
import { witnessApp } from './server.ts';
import { WitnessState } from './state.ts';

export interface WitnessOptions {
  dataDir: string;
  /** The witness's key name, e.g. `witness.example/w1`. */
  name: string;
  /** The logs witnessed, as their vkeys (Ed25519, type 0x01); a log's key name is its origin. */
  logVkeys: readonly string[];
  host: string;
  port: number;
  /** A PEM file holding the Ed25519 key; default: `witness-key.pem` in the data folder, made at first start. */
  keyFile?: string;
  logger: Logger;
}

export interface RunningWitness {
  url: string;
  vkey: string;
  keyCreated: boolean;
  stop(): Promise<void>;
}

/** The logs a witness follows, from their vkeys: origin → verifiers. A reason in words for a bad one. */
export function witnessedLogs(vkeys: readonly string[]): Map<string, NoteVerifier[]> | string {
  const logs = new Map<string, NoteVerifier[]>();
  for (const text of vkeys) {
    const v = parseVkey(text);
    if (typeof v === 'string') return `log vkey ${text}: ${v}`;
    if (v.type !== SIG_ED25519) return `log vkey ${text}: a log signs checkpoints with Ed25519 (type 0x01)`;
    logs.set(v.name, [...(logs.get(v.name) ?? []), ed25519NoteVerifier(v.name, v.publicKey)]);
  }
  return logs;
}

export async function startWitness(o: WitnessOptions): Promise<RunningWitness> {
  const logs = witnessedLogs(o.logVkeys);
  if (typeof logs === 'string') throw new TypeError(logs);
  if (logs.size === 0) throw new TypeError('a witness follows at least one log (--log VKEY)');
  const state = await WitnessState.open(o.dataDir);
  const { key, created } = await witnessKey(o.dataDir, o.keyFile);
  const cosigner = ed25519Cosigner(o.name, key);
  const vkey = formatVkey(o.name, SIG_COSIGNATURE_V1, rawEd25519PublicKey(createPublicKey(key)));
  const app = await witnessApp({ state, cosigner, vkey, logs, logger: o.logger });
  await app.listen({ host: o.host, port: o.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  o.logger.info({ logs: [...logs.keys()], cosigned: state.entries().map(([origin, l]) => ({ origin, size: l.size })) }, 'witness: started');
  return { url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`, vkey, keyCreated: created, stop: () => app.close() };
}
