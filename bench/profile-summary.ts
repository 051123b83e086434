/**
 * A V8 `.cpuprofile` (node --cpu-prof) summarized into self time by category of the suite's work.
 * Each sample is charged to the innermost frame of its stack that a rule of
 * bench/profile-categories.ts recognizes (a builtin like JSON.parse or a node:crypto frame is charged
 * to the code that called it); samples whose stack nothing recognizes are "other", and their top
 * frames are listed so that the rules can be completed.
 *
 *   node bench/profile-summary.ts FILE.cpuprofile [--from µs --to µs] [--cpu-per-request µs] [--detail]
 *   (--from/--to: CLOCK_MONOTONIC µs, as V8 stamps samples; bench/profile.ts prints them)
 *
 * Written here rather than taken from a library: reading the format is twenty lines (nodes with
 * parents, samples, time deltas), and what matters, the categories, is this project's own.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { categoryOf, CATEGORIES, IDLE, type Frame } from './profile-categories.ts';

export interface CpuProfile {
  nodes: { id: number; callFrame: Frame; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** µs of samples per category (idle included, under IDLE). */
  byCategory: Map<string, number>;
  /** Busy µs: every category but idle. */
  busy: number;
  /** The largest self frames charged to "other", to complete the rules. */
  otherTop: { frame: string; us: number }[];
  /** Every category's self frames (function, file:line) and their µs: what a category is made of. */
  frames: Map<string, Map<string, number>>;
  windowUs: number;
}

/** Summarize the samples stamped within `window` (all of them without it). */
export function summarizeProfile(p: CpuProfile, window?: { from: number; to: number }): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryCache = new Map<number, string>();
  const category = (id: number): string => {
    const cached = categoryCache.get(id);
    if (cached !== undefined) return cached;
    const stack: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
    const found = categoryOf(stack);
    categoryCache.set(id, found);
    return found;
  };
  const byCategory = new Map<string, number>();
  const frames = new Map<string, Map<string, number>>();
  let t = p.startTime;
  let first: number | undefined;
  let last = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    const dt = p.timeDeltas[i + 1] ?? 0; // a sample stands for the time until the next one
    if (window && (t < window.from || t > window.to)) continue;
    first ??= t;
    last = t;
    const id = p.samples[i]!;
    const c = category(id);
    byCategory.set(c, (byCategory.get(c) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|wt\/[^/]+|main)\//, '')}:${f.lineNumber + 1}`;
    const inCategory = frames.get(c) ?? new Map<string, number>();
    inCategory.set(key, (inCategory.get(key) ?? 0) + dt);
    frames.set(c, inCategory);
  }
  const busy = [...byCategory].filter(([c]) => c !== IDLE).reduce((a, [, v]) => a + v, 0);
  const otherTop = [...(frames.get('other') ?? [])]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([frame, us]) => ({ frame, us }));
  return { byCategory, busy, otherTop, frames, windowUs: last - (first ?? last) };
}

/** A Markdown table: each category's share of the busy samples, and µs per request from `cpuPerRequestUs`. */
export function profileMarkdown(s: ProfileSummary, cpuPerRequestUs: number): string {
  const rows = [...CATEGORIES, 'other']
    .map((c) => [c, s.byCategory.get(c) ?? 0] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  const share = (v: number) => (s.busy > 0 ? v / s.busy : 0);
  return [
    '| category | share of busy samples | µs per request |',
    '|---|---:|---:|',
    ...rows.map(([c, v]) => `| ${c} | ${(share(v) * 100).toFixed(1)}% | ${(share(v) * cpuPerRequestUs).toFixed(1)} |`),
    `| (idle, not counted above) | ${(((s.byCategory.get(IDLE) ?? 0) / Math.max(1, s.windowUs)) * 100).toFixed(0)}% of the window | |`,
    '',
    `"other", largest self frames: ${
      s.otherTop
        .slice(0, 8)
        .map((o) => `${o.frame} ${((o.us / Math.max(1, s.busy)) * 100).toFixed(1)}%`)
        .join('; ') || 'none'
    }.`,
  ].join('\n');
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'cpu-per-request': { type: 'string', default: '0' },
      detail: { type: 'boolean', default: false },
    },
  });
  const file = positionals[0];
  if (file === undefined) throw new Error('usage: node bench/profile-summary.ts FILE.cpuprofile [--from µs --to µs] [--cpu-per-request µs]');
  const p = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const window = values.from !== undefined && values.to !== undefined ? { from: Number(values.from), to: Number(values.to) } : undefined;
  const summary = summarizeProfile(p, window);
  process.stdout.write(`${profileMarkdown(summary, Number(values['cpu-per-request']))}\n`);
  // --detail: each category's ten largest self frames, % of the busy samples.
  if (values.detail) {
    for (const [c, m] of summary.frames) {
      const top = [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([k, us]) => `${k} ${((us / Math.max(1, summary.busy)) * 100).toFixed(1)}%`);
      process.stdout.write(`\n${c}:\n  ${top.join('\n  ')}\n`);
    }
  }
}
