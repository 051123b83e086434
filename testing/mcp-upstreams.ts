import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Real MCP servers from npm for the gateway's tests and bench (`@modelcontextprotocol/server-*`, none
 * written here): launched by the project's own Node, never through a registry.
 */

const MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url));
export const NODE = process.execPath;
export const SERVER_EVERYTHING = join(MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
export const SERVER_FILESYSTEM = join(MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');
export const SERVER_MEMORY = join(MODULES, '@modelcontextprotocol/server-memory/dist/index.js');

/**
 * A port free a moment ago (found, then released: another process may take it meanwhile). Only for
 * what cannot bind port 0 and say which port it got: server-everything prints the PORT it was
 * given, not the one bound. An address where nothing listens is testing/closed-address.ts's, held;
 * everything of ours binds 0 and reports its port.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything in its Streamable HTTP mode, on a free port; resolves once it says it listens. */
export async function startEverythingOverHttp(port?: number): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  port ??= await freePort();
  const child = spawn(NODE, [SERVER_EVERYTHING, 'streamableHttp'], { env: { PATH: '/usr/bin:/bin', PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => { if (line.includes('listening on port')) resolve(); });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** A `mcpServers` file in a fresh folder; returns its path and the folder (removed by `cleanup`). */
export function writeUpstreamsFile(servers: Record<string, unknown>): { path: string; dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-upstreams-'));
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
  return { path, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
