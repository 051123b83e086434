import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { StoredSecrets } from './secrets.ts';

const FILE = 'secrets.json';

/**
 * First start of the embedded suite: make the secrets it needs (HMAC secret, admin key, trace
 * signing key) and keep them in the data folder, owner-only, so that a restart keeps tokens valid
 * and earlier traces verifiable. `created` is true only on the run that made them, which is the one
 * run that prints the admin key.
 */
export async function ensureStoredSecrets(dataDir: string): Promise<{ secrets: StoredSecrets; created: boolean }> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const path = join(dataDir, FILE);
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<StoredSecrets>;
    if (typeof parsed.hmacSecret !== 'string' || typeof parsed.adminKey !== 'string' || typeof parsed.tracePrivateKeyPem !== 'string') {
      throw new Error(`${path} is incomplete; move it aside to generate new secrets`);
    }
    return { secrets: parsed as StoredSecrets, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secrets: StoredSecrets = {
    hmacSecret: randomBytes(48).toString('base64url'),
    adminKey: `sk_admin_${randomBytes(24).toString('base64url')}`,
    tracePrivateKeyPem: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  // `wx`: never overwrite secrets another process wrote a moment ago.
  try {
    await writeFile(path, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return ensureStoredSecrets(dataDir);
    throw err;
  }
  return { secrets, created: true };
}
