import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logKey } from '../../core/tlog/index.ts';
import { startWitness, type RunningWitness } from './index.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

let dir: string;
let witness: RunningWitness;
let doc: {
  info: { version: string };
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'witness-openapi-'));
  const log = logKey('log.test/openapi', generateKeyPairSync('ed25519').privateKey);
  witness = await startWitness({
    dataDir: dir,
    name: 'witness.test/openapi',
    logVkeys: [log.vkey],
    host: '127.0.0.1',
    port: 0,
    logger: pino({ level: 'silent' }),
  });
  doc = (await (await fetch(`${witness.url}/openapi.json`)).json()) as typeof doc;
}, machineTimeout(60_000));
afterAll(async () => {
  await witness?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("the witness's OpenAPI document (GET /openapi.json)", () => {
  it('describes both operations of the protocol, each answer as text, at the interface version', () => {
    expect(doc.info.version).toBe('1.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/add-checkpoint', '/vkey']);
    const add = doc.paths['/add-checkpoint']!.post!;
    expect(add.operationId).toBe('addCheckpoint');
    expect(Object.keys(add.responses).sort()).toEqual(['200', '400', '403', '404', '409', '413', '422']);
    expect(Object.keys(add.responses['409']!.content ?? {})).toContain('text/x.tlog.size');
    expect(doc.paths['/vkey']!.get!.operationId).toBe('getWitnessVkey');
  });

  it("passes redocly's recommended ruleset with 0 errors; the warnings left are the missing license and /vkey's lack of a 4xx", {
    timeout: machineTimeout(60_000),
  }, async () => {
    await writeFile(join(dir, 'witness.json'), JSON.stringify(doc));
    const out = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', '--extends', 'recommended', '--format', 'json', join(dir, 'witness.json')], {
      cwd: dir,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const report = JSON.parse(out.stdout) as { totals: { errors: number }; problems: Array<{ ruleId: string; location: Array<{ pointer: string }> }> };
    expect(report.totals.errors).toBe(0);
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`).sort()).toEqual([
      'info-license #/info',
      'operation-4xx-response #/paths/~1vkey/get/responses',
    ]);
  });

  it('still answers bad input in plain text with the status the protocol names, documented or not', async () => {
    const empty = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST' });
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toMatch(/^text\/plain/);
    const junk = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'old x\n\nnot a note', headers: { 'content-type': 'application/json' } });
    expect(junk.status).toBe(400);
    expect((await fetch(`${witness.url}/nope`)).status).toBe(404);
  });
});
