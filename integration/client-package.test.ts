import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The client library as a user consumes it: `npm run client:build` makes ESM with declarations; a
 * project of its own (strict TypeScript, nodenext) imports `@agent-authority/client` and
 * `/verify`, type-checks, and runs on Node with nothing of this repository but the package.
 */

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the client package', () => {
  it('builds, type-checks in a consumer project and runs there', { timeout: machineTimeout(240_000) }, async () => {
    await run('npm', ['run', '--silent', 'client:build'], { cwd: ROOT, env: process.env });
    dir = await mkdtemp(join(tmpdir(), 'client-consumer-'));
    await mkdir(join(dir, 'node_modules', '@agent-authority'), { recursive: true });
    await symlink(join(ROOT, 'client'), join(dir, 'node_modules', '@agent-authority', 'client'));
    await symlink(join(ROOT, 'node_modules', '@types'), join(dir, 'node_modules', '@types'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          outDir: 'out',
          types: ['node'],
          lib: ['es2023', 'dom'],
        },
        include: ['main.ts'],
      }),
    );
    await writeFile(
      join(dir, 'main.ts'),
      [
        "import { createSuiteClient, TransportError } from '@agent-authority/client';",
        "import { verifyExport } from '@agent-authority/client/verify';",
        "const client = createSuiteClient({ urls: { token: 'http://127.0.0.1:1' }, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 } });",
        "const error = await client.token.get('/plans').catch((e: unknown) => e);",
        "const report = verifyExport('', []);",
        'console.log(JSON.stringify({ transport: error instanceof TransportError, records: report.records }));',
      ].join('\n'),
    );
    await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir], { cwd: dir });
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'main.js')], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({ transport: true, records: 0 });
  });

  it('installs from the tarball of npm run client:pack into an empty folder, as its README says (issue 36)', { timeout: machineTimeout(240_000) }, async () => {
    await run('npm', ['run', '--silent', 'client:pack'], { cwd: ROOT, env: process.env });
    const empty = await mkdtemp(join(tmpdir(), 'client-install-'));
    try {
      await writeFile(join(empty, 'package.json'), JSON.stringify({ name: 'installer', type: 'module', private: true }));
      // No registry: the package has no dependencies, so the tarball alone installs it.
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(ROOT, 'client', 'dist', 'agent-authority-client-1.1.0.tgz')], {
        cwd: empty,
        env: process.env,
      });
      await writeFile(
        join(empty, 'main.js'),
        [
          "import { createSuiteClient } from '@agent-authority/client';",
          "import { verifyReceipt } from '@agent-authority/client/verify';",
          'console.log(JSON.stringify({ client: typeof createSuiteClient, verifyReceipt: typeof verifyReceipt }));',
        ].join('\n'),
      );
      const { stdout } = await run(process.execPath, [join(empty, 'main.js')], { cwd: empty });
      expect(JSON.parse(stdout)).toEqual({ client: 'function', verifyReceipt: 'function' });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
