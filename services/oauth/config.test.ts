import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSection } from '../../config/index.ts';
import { oauthConfig } from './config.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trusted-issuers-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const entry = {
  issuer: 'https://kubernetes.default.svc',
  audience: 'suite',
  jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] },
  subjects: [{ match: 'system:serviceaccount:payments:*', scope: ['tool:invoice:read'], maxLifetime: '15m' }],
};

describe('SUITE_OAUTH_TRUSTED_ISSUERS at start', () => {
  it('reads a good file into the configuration', async () => {
    const path = join(dir, 'good.json');
    await writeFile(path, JSON.stringify({ issuers: [entry] }));
    const c = readSection(oauthConfig, { SUITE_OAUTH_TRUSTED_ISSUERS: path });
    expect(c.oauthTrustedIssuers?.issuers[0]).toMatchObject({ issuer: entry.issuer, audience: 'suite', subjects: [{ maxLifetimeSeconds: 900 }] });
    expect(readSection(oauthConfig, {}).oauthTrustedIssuers).toBeUndefined();
  });

  it('stops the start naming the variable and the bad entry, or the unreadable file', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ issuers: [{ ...entry, subjects: [{ match: '*', scope: ['tool:*'], maxLifetime: '3d' }] }] }));
    expect(() => readSection(oauthConfig, { SUITE_OAUTH_TRUSTED_ISSUERS: path })).toThrow(
      /SUITE_OAUTH_TRUSTED_ISSUERS.*issuers\[0\] \(https:\/\/kubernetes\.default\.svc\)\.subjects\[0\]\.maxLifetime/,
    );
    expect(() => readSection(oauthConfig, { SUITE_OAUTH_TRUSTED_ISSUERS: join(dir, 'missing.json') })).toThrow(
      /SUITE_OAUTH_TRUSTED_ISSUERS.*cannot be read: ENOENT/,
    );
  });
});
