import type { KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type pg from 'pg';
// Not storage/index.ts: that would load every storage module into each thread.
import { jsonRows, openScanClient, scanExecutionRange } from '../../../storage/index.ts';
import type { ScanSource } from './verify-pool.ts';
import { RunJudge } from './verify-scan.ts';

/**
 * A verification thread (services/spine/executions/verify-pool.ts): parses or reads the records of a job,
 * checks each one's content against its hash and its signature, and the seq and links between
 * them, and answers a summary of a few fields instead of the records. It holds no state but the
 * keys of the job at hand and, on Postgres, its scan connection.
 */
if (!parentPort) throw new Error('verify-worker.ts runs as a worker thread');
const port = parentPort;

interface Job {
  id: number;
  source: ScanSource;
  keys: [string, KeyObject][];
  pinned: KeyObject | undefined;
}

port.on('message', (job: Job) => void run(job));

async function run(job: Job): Promise<void> {
  try {
    const keys = new Map(job.keys);
    const pinned = job.pinned;
    const judge = new RunJudge(pinned ? () => pinned : (keyId) => keys.get(keyId));
    if ('json' in job.source) {
      for (const row of jsonRows(job.source.json)) if (!judge.push(row)) break;
    } else {
      await read(job.source, (row) => judge.push(row));
    }
    port.postMessage({ id: job.id, summary: judge.summary() });
  } catch (err) {
    port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  }
}

// On Postgres: one scan connection per database, closed once the thread has had nothing to read for
// a while (a verification reads continuously, so it stays open for the whole run).
const IDLE_MS = 2_000;
const clients = new Map<string, Promise<pg.Client>>();
let reading = 0;
let idleTimer: NodeJS.Timeout | undefined;

async function read(s: { url: string; from: number; to: number }, onRow: Parameters<typeof scanExecutionRange>[3]): Promise<void> {
  clearTimeout(idleTimer);
  reading++;
  let client = clients.get(s.url);
  if (!client) {
    client = openScanClient(s.url);
    clients.set(s.url, client);
  }
  try {
    await scanExecutionRange(await client, s.from, s.to, onRow);
  } catch (err) {
    // A broken connection is not reused: the next job opens a fresh one.
    if (clients.get(s.url) === client) clients.delete(s.url);
    void client.then((c) => c.end()).catch(() => undefined);
    throw err;
  } finally {
    if (--reading === 0) idleTimer = setTimeout(closeClients, IDLE_MS);
  }
}

function closeClients(): void {
  for (const client of clients.values()) void client.then((c) => c.end()).catch(() => undefined);
  clients.clear();
}
