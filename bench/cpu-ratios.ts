/**
 * CPU per answered request against what the work needs (issue 28, part 4): a validate against a
 * bare Fastify request, an append against one Ed25519 signature, all measured in the same
 * `npm run bench` run. CPU, not rate: on a shared machine a rate says how busy the neighbours were,
 * while the CPU time a request costs the server's process tree (the embedded Postgres included,
 * read from /proc by bench/cpu.ts) barely moves with them.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createTraceSigner } from '../core/chain/index.ts';
import type { LoadResult } from './load.ts';

export const VALIDATE_TARGET_OF_BARE = 3;
export const APPEND_TARGET_OF_SIGNATURE = 6;

/**
 * CPU per 2xx answer with the work the run left behind charged to it: the tree's CPU over the
 * measured `seconds` plus `tailCpuSeconds` (what it used after the run until idle: cpuUntilIdle),
 * over the run's 2xx answers. NaN when none.
 */
export function cpuPerAnsweredWithTailUs(r: LoadResult, seconds: number, tailCpuSeconds: number): number {
  const treePct = Object.values(r.serverThreads).reduce((a, b) => a + b, 0);
  const answered = Object.entries(r.statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((a, [, n]) => a + n, 0);
  if (answered === 0) return Number.NaN;
  return (((treePct / 100) * seconds + tailCpuSeconds) * 1e6) / answered;
}

/** The server tree's CPU per 2xx answer during a load run, in µs (its per-thread % of a core over the run's rate). */
export function cpuPerAnsweredUs(r: LoadResult): number {
  const treePct = Object.values(r.serverThreads).reduce((a, b) => a + b, 0);
  const answered = Object.entries(r.statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((a, [, n]) => a + n, 0);
  if (answered === 0 || r.total === 0) return Number.NaN;
  // reqPerSec counts every answer; only the 2xx share of them is charged as "answered".
  return ((treePct / 100) * 1e6) / (r.reqPerSec * (answered / r.total));
}

/**
 * CPU time of one Ed25519 signature over a 32-byte digest with the chain's own signer, on this
 * thread: process.cpuUsage (user + system) around `n` signatures, the median of `rounds`.
 */
export function signatureCpuUs(n = 20_000, rounds = 5): number {
  const signer = createTraceSigner(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const digest = randomBytes(32).toString('hex');
  for (let i = 0; i < 1000; i++) signer.sign(digest); // warm-up
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) signer.sign(digest);
    const used = process.cpuUsage(before);
    perRound.push((used.user + used.system) / n);
  }
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

export interface CpuRatios {
  bareUs: number;
  validateUs: number;
  appendUs: number;
  signatureUs: number;
  /** Load average (1 min) when each figure was taken. */
  load: { http: number; append: number; signature: number };
  /** Answers other than 2xx in the runs the figures come from: a run with any measured something else. */
  non2xx?: { bare: number; validate: number; append: number };
}

/** How many requests of a run were not answered 2xx: other statuses, and errors and timeouts (no answer at all). */
export function non2xxOf(r: LoadResult): number {
  return (
    Object.entries(r.statusCodes)
      .filter(([code]) => !code.startsWith('2'))
      .reduce((a, [, n]) => a + n, 0) +
    r.errors +
    r.timeouts
  );
}

export const loadNow = () => loadavg()[0] ?? 0;

export function cpuRatiosMarkdown(c: CpuRatios): string {
  const v = c.validateUs / c.bareUs;
  const a = c.appendUs / c.signatureUs;
  const f = (n: number) => n.toFixed(0);
  const met = (ok: boolean) => (ok ? 'met' : '**NOT met**');
  return [
    '| measure | CPU per answered request (server process tree) | load average (1 min) |',
    '|---|---:|---:|',
    `| bare Fastify \`GET /\` (bench/bare-server.ts) | ${f(c.bareUs)} µs | ${c.load.http.toFixed(1)} |`,
    `| \`POST /auth/token/validate\` (embedded suite) | ${f(c.validateUs)} µs | ${c.load.http.toFixed(1)} |`,
    `| \`POST /executions\` (embedded suite) | ${f(c.appendUs)} µs | ${c.load.append.toFixed(1)} |`,
    `| one Ed25519 signature (chain's signer, this thread, \`process.cpuUsage\`) | ${c.signatureUs.toFixed(1)} µs | ${c.load.signature.toFixed(1)} |`,
    '',
    `- validate / bare = **${v.toFixed(1)}×** (target ≤ ${VALIDATE_TARGET_OF_BARE}×): ${met(v <= VALIDATE_TARGET_OF_BARE)}`,
    `- append / signature = **${a.toFixed(1)}×** (target ≤ ${APPEND_TARGET_OF_SIGNATURE}×): ${met(a <= APPEND_TARGET_OF_SIGNATURE)}`,
    '- Server CPU: user + system time of the server process and every descendant (the embedded Postgres included), from /proc, over the measured run, divided by its 2xx answers; the load generator runs in the bench process and is not counted.',
    // A saturated run (e.g. 503s once the audit trail lags) charges cheap refusals and leaves work
    // for after the window: its ratio is no measure of the path. Say so instead of quoting it.
    ...Object.entries(c.non2xx ?? {})
      .filter(([, n]) => n > 0)
      .map(
        ([run, n]) =>
          `- **INVALID for ${run}**: its run had ${n} non-2xx answers, so its figure above does not measure that request; \`node bench/cpu-ratio-rounds.ts\` measures the ratios in short alternating rounds.`,
      ),
  ].join('\n');
}
