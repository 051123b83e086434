import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const KEY_FILE = 'witness-key.pem';

/**
 * The witness's Ed25519 key: the PEM file given, else `witness-key.pem` under its data folder,
 * generated there (mode 600, never overwritten) at the first start. Losing it loses nothing a
 * verifier holds but the ability to cosign under the same vkey; copying it is copying the witness.
 */
export async function witnessKey(dataDir: string, keyFile?: string): Promise<{ key: KeyObject; path: string; created: boolean }> {
  const path = keyFile ?? join(dataDir, KEY_FILE);
  try {
    return { key: ed25519Key(await readFile(path, 'utf8'), path), path, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || keyFile !== undefined) throw err;
  }
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  // `wx`: two witnesses started at once on one folder cannot each write a key of their own.
  await writeFile(path, pem, { mode: 0o600, flag: 'wx' });
  return { key: ed25519Key(pem, path), path, created: true };
}

function ed25519Key(pem: string, path: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${path}: not an Ed25519 private key`);
  return key;
}
