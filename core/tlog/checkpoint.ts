import { HASH_SIZE, isTreeIndex } from './hash.ts';
import { strictBase64 } from './note.ts';

/**
 * C2SP tlog-checkpoint: the note text `<origin>\n<size>\n<base64 root>\n` and optional extension
 * lines. The origin names the log, so a checkpoint of one log is never taken for another's.
 */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

export function formatCheckpoint(c: Checkpoint): string {
  if (!isTreeIndex(c.size) || c.root.length !== HASH_SIZE) throw new RangeError('a checkpoint has a size and a 32-byte root');
  return `${c.origin}\n${c.size}\n${c.root.toString('base64')}\n${c.extensions.map((e) => `${e}\n`).join('')}`;
}

/** Parse a checkpoint's note text; a reason in words when it is not one. */
export function parseCheckpoint(text: string): Checkpoint | string {
  if (!text.endsWith('\n')) return 'a checkpoint ends in a newline';
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) return 'a checkpoint has an origin, a size and a root hash';
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0) return 'a checkpoint origin is not empty';
  // Decimal ASCII, no leading zeroes (tlog-checkpoint).
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) return 'a checkpoint size is a decimal number without leading zeroes';
  const root = strictBase64(rootText);
  if (!root || root.length !== HASH_SIZE) return 'a checkpoint root is 32 bytes in base64';
  if (extensions.some((e) => e.length === 0)) return 'a checkpoint has no empty extension line';
  return { origin, size: Number(sizeText), root, extensions };
}
