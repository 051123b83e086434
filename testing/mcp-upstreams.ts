import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
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
 * A port free a moment ago (found, then released: another process may take it meanwhile). Only
 * where a port must be named before anything listens on it (mcp-gateway-changes: the upstreams
 * file names a server started later). An address where nothing listens is
 * testing/closed-address.ts's, held; server-everything binds 0 (startEverythingOverHttp), and
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

/**
 * server-everything in its Streamable HTTP mode; resolves once it says it listens. Without a port
 * it binds port 0 itself (PORT=0), and the port it got is read from the kernel's socket table
 * (it prints the PORT it was given, not the one bound).
 */
export async function startEverythingOverHttp(port?: number): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(NODE, [SERVER_EVERYTHING, 'streamableHttp'], {
    env: { PATH: '/usr/bin:/bin', PORT: String(port ?? 0) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (line.includes('listening on port')) resolve();
    });
  });
  if (port === undefined) {
    const bound = listeningPorts(child.pid as number);
    if (bound.length !== 1) throw new Error(`server-everything (pid ${child.pid}) listens on ${bound.length} ports: ${bound.join(', ')}`);
    port = bound[0] as number;
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The TCP ports a process listens on (Linux): its socket inodes matched in /proc/net/tcp and tcp6, state LISTEN. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is hex ADDR:PORT, st 0A is LISTEN, the inode is the tenth field.
      if (f[3] === '0A' && inodes.has(f[9] as string)) ports.add(parseInt((f[1] as string).split(':')[1] as string, 16));
    }
  }
  return [...ports];
}

/** A `mcpServers` file in a fresh folder; returns its path and the folder (removed by `cleanup`). */
export function writeUpstreamsFile(servers: Record<string, unknown>): { path: string; dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-upstreams-'));
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
  return { path, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
