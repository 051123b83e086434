import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';

/**
 * Test-only: a client generated from the listeners' OpenAPI documents, as a user of the suite would
 * make one (openapi-typescript for the types, openapi-fetch for the calls), in a throw-away project
 * that TypeScript checks in strict mode and Node then runs against the live suite.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export interface ClientProject {
  dir: string;
  /** `tsc --noEmit` over the project: its diagnostics, one line each (none when it type-checks). */
  typecheck(): Promise<string[]>;
  remove(): Promise<void>;
}

/**
 * Writes `<listener>.ts` (the generated `paths`) for each document, the given source files, a strict
 * tsconfig, and a `node_modules` link to ours (openapi-fetch, @types/node).
 */
export async function clientProject(documents: ReadonlyMap<string, object>, sources: Record<string, string>): Promise<ClientProject> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-openapi-client-'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await mkdir(join(dir, 'generated'));
  for (const [listener, document] of documents) {
    const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
    await writeFile(join(dir, 'generated', `${listener}.ts`), astToString(ast));
  }
  for (const [name, text] of Object.entries(sources)) await writeFile(join(dir, name), text);
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        noUncheckedIndexedAccess: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['*.ts', 'generated/*.ts'],
    }),
  );
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return {
    dir,
    async typecheck() {
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      try {
        await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
        return [];
      } catch (err) {
        const out = String((err as { stdout?: string }).stdout ?? err);
        // One line per diagnostic; the indented lines that continue a message are left out.
        return out.split('\n').filter((line) => /^\S.*error TS\d+/.test(line));
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
