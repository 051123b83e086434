import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WitnessState } from './state.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'witness-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a witness's durable state", () => {
  it('is on disk when advance resolves, and read back whole by a new opening', async () => {
    const first = await WitnessState.open(dir);
    await first.advance('a.test/log', { size: 30, root: 'cm9vdA==' });
    await first.advance('b.test/log', { size: 2, root: 'cm9vdDI=' });
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')).logs['a.test/log']).toEqual({ size: 30, root: 'cm9vdA==' });
    const again = await WitnessState.open(dir);
    expect(again.entries()).toEqual([
      ['a.test/log', { size: 30, root: 'cm9vdA==' }],
      ['b.test/log', { size: 2, root: 'cm9vdDI=' }],
    ]);
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'state.json']);
  });

  it('refuses to start on a state file it cannot read, rather than start empty', async () => {
    await writeFile(join(dir, 'state.json'), '{"format":"suite-witness-state/v1","logs":{"a.test/log":{"size":-1,"root":"x"}}}');
    await expect(WitnessState.open(dir)).rejects.toThrow(/not a size and a root/);
    await writeFile(join(dir, 'state.json'), '{"logs":');
    await expect(WitnessState.open(dir)).rejects.toThrow(/not JSON/);
  });

  it('keeps evidence as a text file a person can read: the reason, then the note as received', async () => {
    const state = await WitnessState.open(dir);
    const note = 'a.test/log\n30\nb3RoZXI=\n\n\u2014 a.test/log c2ln\n';
    const path = await state.keepEvidence(
      { origin: 'a.test/log', note, reason: 'split view: size 30 cosigned with root cm9vdA==' },
      new Date('2026-11-26T15:00:00Z'),
    );
    expect(await state.evidence()).toEqual([path]);
    const text = await readFile(path, 'utf8');
    expect(text).toContain('reason: split view: size 30 cosigned with root cm9vdA==');
    expect(text.endsWith(note)).toBe(true);
  });
});
