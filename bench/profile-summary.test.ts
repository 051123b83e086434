import { describe, expect, it } from 'vitest';
import { categoryOf, IDLE, type Frame } from './profile-categories.ts';
import { summarizeProfile, type CpuProfile } from './profile-summary.ts';

const frame = (functionName: string, url: string): Frame => ({ functionName, url, lineNumber: 0 });
const ROOT = frame('(root)', '');
const SERVER = frame('parserOnIncoming', 'node:_http_server');
const BUS = frame('request', 'file:///repo/bus/bus.ts');
const CHECK = frame('Check', 'file:///repo/node_modules/typebox/build/value/check.mjs');
const PARSE = frame('parse', '');
const JOURNAL = frame('append', 'file:///repo/actors/audit/journal.ts');

describe('categoryOf', () => {
  it('charges a builtin with no file to the innermost frame a rule recognizes', () => {
    expect(categoryOf([PARSE, JOURNAL, SERVER, ROOT])).toBe('audit journal write and sync');
  });

  it('charges a schema check made by the bus to the bus hop, and one made by an edge route to the edge', () => {
    expect(categoryOf([CHECK, BUS, SERVER, ROOT])).toBe('bus hop and its validations');
    expect(categoryOf([CHECK, SERVER, ROOT])).toBe('schema checks (edge)');
  });

  it("names V8's own entries by their name and leaves an unrecognized stack as other", () => {
    expect(categoryOf([frame('(garbage collector)', ''), ROOT])).toBe('GC');
    expect(categoryOf([frame('(idle)', ''), ROOT])).toBe(IDLE);
    expect(categoryOf([frame('somewhere', 'file:///elsewhere/x.js'), ROOT])).toBe('other');
  });
});

describe('summarizeProfile', () => {
  // root(1) -> server(2) -> journal(3); root -> idle(4). Samples every 100 µs from t = 1000.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: ROOT, children: [2, 4] },
      { id: 2, callFrame: SERVER, children: [3] },
      { id: 3, callFrame: JOURNAL },
      { id: 4, callFrame: frame('(idle)', '') },
    ],
    startTime: 1000,
    endTime: 1700,
    samples: [2, 3, 3, 4, 2, 4, 3],
    timeDeltas: [0, 100, 100, 100, 100, 100, 100],
  };

  it('gives each sample the time until the next one, by category, idle apart from busy', () => {
    const s = summarizeProfile(profile);
    expect(s.byCategory.get('HTTP and JSON (Node http, Fastify, routing, body parsing)')).toBe(200);
    expect(s.byCategory.get('audit journal write and sync')).toBe(200); // the last sample has no successor
    expect(s.byCategory.get(IDLE)).toBe(200);
    expect(s.busy).toBe(400);
  });

  it('counts only the samples stamped within the window given', () => {
    const s = summarizeProfile(profile, { from: 1150, to: 1450 });
    // Samples at 1200 (journal), 1300 (idle), 1400 (server).
    expect(s.byCategory.get('audit journal write and sync')).toBe(100);
    expect(s.byCategory.get(IDLE)).toBe(100);
    expect(s.busy).toBe(200);
  });
});
