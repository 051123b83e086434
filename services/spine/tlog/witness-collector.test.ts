import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../../storage/index.ts';
import { ed25519Cosigner, formatCheckpoint, formatVkey, logKey, signNote, signatureLine, SIG_COSIGNATURE_V1 } from '../../../core/tlog/index.ts';
import { WitnessCollector } from './witness-collector.ts';

const log = logKey('suite.test/log', generateKeyPairSync('ed25519').privateKey);
const cosigner = ed25519Cosigner('witness.test/w1', generateKeyPairSync('ed25519').privateKey);
const vkey = formatVkey(cosigner.name, SIG_COSIGNATURE_V1, cosigner.publicKey);
const note = signNote(formatCheckpoint({ origin: 'suite.test/log', size: 5, root: Buffer.alloc(32, 1), extensions: [] }), [log.signer]);
const text = note.slice(0, note.lastIndexOf('\n\n') + 1);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** A witness double on 127.0.0.1 answering each request's body as `answer` says; the bodies it got. */
async function witnessDouble(answer: (body: string, res: ServerResponse) => void): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      answer(body, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, bodies };
}

/** Storage whose only use here is storing the cosigned note. */
function storage() {
  const stored: string[] = [];
  const fake = {
    pool: {
      query: async (q: { values: unknown[] }) => {
        stored.push(String(q.values[0]));
      },
    },
  } as unknown as Storage;
  return { fake, stored };
}

describe('the log collecting cosignatures from a witness', () => {
  it('learns the size the witness holds from its 409, asks again from there, and stores the verified cosignature with the note', async () => {
    const w = await witnessDouble((body, res) => {
      if (body.startsWith('old 0\n')) return res.writeHead(409, { 'content-type': 'text/x.tlog.size' }).end('5\n');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(signatureLine(cosigner.cosign(text, 1_800_000_000)));
    });
    const s = storage();
    const c = new WitnessCollector({ storage: s.fake, witnesses: [{ url: w.url, vkey }] });
    c.published({ size: 5, note });
    await c.settled();
    expect(w.bodies.map((b) => b.slice(0, b.indexOf('\n')))).toEqual(['old 0', 'old 5']);
    expect(s.stored).toEqual([note + signatureLine(cosigner.cosign(text, 1_800_000_000))]);
    expect(c.status()).toEqual([{ name: 'witness.test/w1', url: w.url, cosignedSize: 5, up: true }]);
  });

  it('keeps nothing a witness answers that is not its valid cosignature of this checkpoint, and says it is down', async () => {
    const other = signNote(formatCheckpoint({ origin: 'suite.test/log', size: 6, root: Buffer.alloc(32, 2), extensions: [] }), [log.signer]);
    const w = await witnessDouble((_body, res) =>
      res.writeHead(200).end(signatureLine(cosigner.cosign(other.slice(0, other.lastIndexOf('\n\n') + 1), 1_800_000_000))),
    );
    const s = storage();
    const c = new WitnessCollector({ storage: s.fake, witnesses: [{ url: w.url, vkey }] });
    c.published({ size: 5, note });
    await c.settled();
    expect(s.stored).toEqual([]);
    expect(c.status()[0]).toMatchObject({ cosignedSize: 0, up: false });
  });

  it('stops at once while a witness hangs: the call is aborted, not waited for', async () => {
    const w = await witnessDouble(() => undefined);
    const c = new WitnessCollector({ storage: storage().fake, witnesses: [{ url: w.url, vkey }], timeoutMs: 60_000 });
    c.published({ size: 5, note });
    await expect.poll(() => w.bodies.length).toBe(1);
    const t0 = performance.now();
    await c.stop();
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
