import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The local servers bench/bench-service.ts measures, each in a child process (its own event loop,
 * so the measuring tool's work does not delay its answers): one answers after a timer of `delayMs`
 * (0: at once) and, if told to, keeps for every request its own time from the request parsed to the
 * answer written. `GET /__served` hands those times over (and forgets them): what the server itself spent,
 * the floor under any client's measurement of the same requests.
 */
const SERVER = `
const http = require('node:http');
const delay = Number(process.argv[1]);
const record = process.argv[2] === 'record';
let served = [];
const s = http.createServer((req, res) => {
  if (req.url === '/__served') { const body = JSON.stringify(served); served = []; res.setHeader('content-type', 'application/json'); res.end(body); return; }
  const start = record ? process.hrtime.bigint() : 0n;
  req.resume();
  const end = () => { res.end('ok'); if (record) served.push(Number(process.hrtime.bigint() - start) / 1e6); };
  delay > 0 ? setTimeout(end, delay) : end();
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;

export interface LocalServer {
  readonly url: string;
  /** The server's process id (its CPU time is read from /proc by the rate runs). */
  readonly pid: number;
  /** The server's own times (ms) of the requests since the last call; the list is then emptied. */
  served(): Promise<number[]>;
  close(): void;
}

/** `record`: keep the server's own times (the accuracy runs); off for the rate runs, where it would cost the server time. */
export async function startServer(delayMs: number, o: { record: boolean }): Promise<LocalServer> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SERVER, String(delayMs), o.record ? 'record' : 'plain'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    pid: child.pid!,
    async served() {
      const res = await fetch(`${url}__served`);
      return (await res.json()) as number[];
    },
    close: () => child.kill(),
  };
}
