/**
 * The OAuth front door's costs (issue 32), in alternating rounds on one embedded suite with a data
 * folder: requests per second and CPU per answer of the server's whole process tree for
 * - `POST /oauth/token`, client_credentials with client_secret_basic (a token row and an audit entry each);
 * - `POST /oauth/introspect` (RFC 7662, client-authenticated; an audit decision each);
 * - `POST /auth/token` (the admin key's mint) and `POST /auth/token/validate`, the suite's own pair, in
 *   the same rounds for comparison;
 * - the same validate called by a DPoP-bound token (`Authorization: DPoP` + a fresh proof per request)
 *   against a Bearer token of the same scope: the extra CPU an edge spends on the proof.
 *
 * The load client is this process (closed loop, `--connections` requests in flight, Node's fetch); the
 * DPoP proofs are signed here with jose, one per request, so their cost is the client's. The server's
 * figure is its tree's CPU (bench/cpu.ts treeCpuSeconds) over the run plus what it did after the run
 * until idle again (the audit backlog the run left), divided by the 2xx answers. A target with any
 * non-2xx answer in a round is marked INVALID and left out of the medians.
 *
 *   npx node bench/oauth.ts [--rounds 3] [--seconds 4] [--connections 16]
 *
 * Only 127.0.0.1; bounded (a watchdog ends the suite after 10 minutes).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { cpuUntilIdle, treeCpuSeconds, waitIdle } from './cpu.ts';
import { loadNow } from './cpu-ratios.ts';
import { describeMachine, machineMarkdown } from './machine.ts';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];
const TARGETS = ['oauth token', 'introspect', 'auth/token', 'validate', 'validate Bearer', 'validate DPoP'] as const;
type TargetName = (typeof TARGETS)[number];

/** One request of a target: built per call, so a DPoP proof can be fresh each time. */
type Request = () => Promise<{ url: string; init: RequestInit }>;
interface Figure {
  reqPerSec: number;
  cpuUs: number;
  ok: number;
  bad: number;
}
interface Round {
  figures: Record<TargetName, Figure>;
  load: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** A closed loop of `connections` requests in flight for `seconds`; the server tree's CPU over it and its tail. */
async function run(pid: number, request: Request, seconds: number, connections: number): Promise<Figure> {
  await waitIdle(pid, 30_000);
  let ok = 0;
  let bad = 0;
  let lastBad = '';
  const cpu0 = await treeCpuSeconds(pid);
  const start = performance.now();
  const until = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const { url, init } = await request();
      const res = await fetch(url, init);
      const text = await res.text();
      if (res.status < 300) ok++;
      else {
        bad++;
        lastBad = `${res.status} ${text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - start) / 1000;
  const cpu1 = await treeCpuSeconds(pid);
  const tail = await cpuUntilIdle(pid, 60_000);
  if (bad > 0) process.stderr.write(`oauth bench: ${bad} non-2xx, last: ${lastBad}\n`);
  return { reqPerSec: (ok + bad) / elapsed, cpuUs: ok === 0 ? Number.NaN : ((cpu1 - cpu0 + tail.cpuSeconds) / ok) * 1e6, ok, bad };
}

interface Suite {
  child: Child;
  dir: string;
  requests: Record<TargetName, Request>;
}

async function startSuite(): Promise<Suite> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-oauth-'));
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', join(dir, 'data')], { env });
  try {
    return { child, dir, requests: await prepare(child, dir) };
  } catch (err) {
    await child.stop(30_000);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A confidential client, tokens for every target, and a check that each target answers 2xx once. */
async function prepare(child: Child, dir: string): Promise<Record<TargetName, Request>> {
  const base = `http://127.0.0.1:${(await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1]}`;
  const { adminKey } = JSON.parse(await readFile(join(dir, 'data', 'secrets.json'), 'utf8')) as { adminKey: string };
  const scope = ['auth:token:validate', 'audit:read'];
  const reg = await callJson(`${base}/oauth/register`, {
    headers: { 'x-suite-admin-key': adminKey },
    body: { client_name: 'bench agent', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: scope.join(' ') },
  });
  if (reg.status !== 201) throw new Error(`registration: ${reg.status} ${JSON.stringify(reg.body)}`);
  const basic = `Basic ${Buffer.from(`${reg.body.client_id as string}:${reg.body.client_secret as string}`).toString('base64')}`;
  const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  const tokenUrl = `${base}/oauth/token`;
  const ccBody = `grant_type=client_credentials&scope=${encodeURIComponent(scope.join(' '))}`;

  const bearer = await oauthToken(tokenUrl, form, ccBody);
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = await exportJWK(publicKey);
  const proof = (htm: string, htu: string, token?: string) => {
    const claims: Record<string, string | number> = { htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) };
    if (token !== undefined) claims.ath = b64url(createHash('sha256').update(token).digest());
    return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: jwk as JWK }).sign(privateKey);
  };
  const bound = await oauthToken(tokenUrl, { ...form, dpop: await proof('POST', tokenUrl) }, ccBody);
  if (bound.type !== 'DPoP') throw new Error(`a DPoP proof at the token endpoint gave token_type ${bound.type}`);
  const admin = await mint(base, adminKey, 'bench-agent', scope);
  const validateUrl = `${base}/auth/token/validate`;
  const validateBody = JSON.stringify({ token: admin.token, requiredScope: 'audit:read' });
  const json = (authorization: string) => ({ authorization, 'content-type': 'application/json' });

  const requests: Record<TargetName, Request> = {
    'oauth token': async () => ({ url: tokenUrl, init: { method: 'POST', headers: form, body: ccBody } }),
    introspect: async () => ({ url: `${base}/oauth/introspect`, init: { method: 'POST', headers: form, body: `token=${bearer.token}` } }),
    'auth/token': async () => ({
      url: `${base}/auth/token`,
      init: {
        method: 'POST',
        headers: { 'x-suite-admin-key': adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'bench-minted', scope: ['audit:read'] }),
      },
    }),
    validate: async () => ({ url: validateUrl, init: { method: 'POST', headers: json(`Bearer ${admin.token}`), body: validateBody } }),
    'validate Bearer': async () => ({ url: validateUrl, init: { method: 'POST', headers: json(`Bearer ${bearer.token}`), body: validateBody } }),
    'validate DPoP': async () => ({
      url: validateUrl,
      init: { method: 'POST', headers: { ...json(`DPoP ${bound.token}`), dpop: await proof('POST', validateUrl, bound.token) }, body: validateBody },
    }),
  };
  for (const name of TARGETS) {
    const { url, init } = await requests[name]();
    const res = await fetch(url, init);
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${name} check: ${res.status} ${text}`);
    if (name === 'introspect' && !(JSON.parse(text) as { active: boolean }).active) throw new Error(`introspection says inactive: ${text}`);
  }
  // A DPoP-bound token as a plain Bearer must be refused: the bound figure measures a real check.
  const asBearer = await fetch(validateUrl, { method: 'POST', headers: json(`Bearer ${bound.token}`), body: validateBody });
  await asBearer.text();
  if (asBearer.status < 300) throw new Error('a DPoP-bound token was accepted as Bearer');
  return requests;
}

async function oauthToken(url: string, headers: Record<string, string>, body: string): Promise<{ token: string; type: string }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const b = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || typeof b.access_token !== 'string') throw new Error(`token endpoint: ${res.status} ${JSON.stringify(b)}`);
  return { token: b.access_token, type: String(b.token_type) };
}

async function main(rounds: number, seconds: number, connections: number): Promise<Round[]> {
  const suite = await startSuite();
  const pid = suite.child.proc.pid ?? 0;
  try {
    const out: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      // The order alternates each round, so no target always follows the same neighbour.
      const order = i % 2 === 0 ? [...TARGETS] : [...TARGETS].reverse();
      const figures = {} as Record<TargetName, Figure>;
      for (const name of order) figures[name] = await run(pid, suite.requests[name], seconds, connections);
      out.push({ figures, load: loadNow() });
      process.stderr.write(`oauth bench: round ${i + 1} of ${rounds} done\n`);
    }
    return out;
  } finally {
    await suite.child.stop(30_000);
    await rm(suite.dir, { recursive: true, force: true });
  }
}

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');

function markdown(rs: Round[]): string {
  const valid = (name: TargetName) => rs.filter((r) => r.figures[name].bad === 0).map((r) => r.figures[name]);
  const med = (name: TargetName, key: 'reqPerSec' | 'cpuUs') => (valid(name).length === 0 ? Number.NaN : median(valid(name).map((x) => x[key])));
  const cell = (r: Round, name: TargetName) =>
    `${f(r.figures[name].reqPerSec)} / ${f(r.figures[name].cpuUs)}${r.figures[name].bad > 0 ? ` **INVALID** (${r.figures[name].bad} non-2xx)` : ''}`;
  const extra = med('validate DPoP', 'cpuUs') - med('validate Bearer', 'cpuUs');
  return [
    `| round | ${TARGETS.join(' | ')} | load (1 min) |`,
    `|---|${TARGETS.map(() => '---:').join('|')}|---:|`,
    ...rs.map((r, i) => `| ${i + 1} | ${TARGETS.map((t) => cell(r, t)).join(' | ')} | ${f(r.load, 1)} |`),
    `| median | ${TARGETS.map((t) => `**${f(med(t, 'reqPerSec'))} / ${f(med(t, 'cpuUs'))}**`).join(' | ')} | ${f(median(rs.map((r) => r.load)), 1)} |`,
    '',
    "Each cell: requests per second / µs of CPU of the server's whole process tree per 2xx answer (the tail until idle included).",
    `DPoP-bound validate's extra CPU over a Bearer one (medians): **${f(extra)} µs** per request (${f((extra / med('validate Bearer', 'cpuUs')) * 100)}%).`,
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '4' }, connections: { type: 'string', default: '16' } },
  });
  const watchdog = setTimeout(() => {
    process.stderr.write('oauth bench: watchdog, 10 minutes\n');
    killAllChildren();
    process.exit(2);
  }, 10 * 60_000);
  watchdog.unref();
  const machine = await describeMachine();
  const rounds = await main(Number(values.rounds), Number(values.seconds), Number(values.connections));
  process.stdout.write(`${machineMarkdown(machine)}\n\n${markdown(rounds)}\n`);
}
