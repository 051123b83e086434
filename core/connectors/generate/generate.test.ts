import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateConnector } from './generate.ts';
import { KNOWN_SERVICES, VERBS } from './lexicon.ts';

const VOCABULARY = [
  ...Object.keys(VERBS),
  ...Object.keys(KNOWN_SERVICES),
  'Acme',
  'tickets',
  'a',
  'the',
  'with',
  'title',
  'and',
  'body',
  'API',
  'in',
  'to',
  'for',
  'invoice',
  'customers',
  'https://api.example.org/v1',
  'api key',
  'basic auth',
  'labels',
  'Zeta9',
  '42',
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'posts',
  'fetches',
];
const structuredPrompt = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 25 }).map((w) => w.join(' '));
const anyPrompt = fc.oneof(structuredPrompt, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 300 }));

describe('generateConnector', () => {
  it('gives byte-identical output for the same prompt, whatever was generated in between', () => {
    fc.assert(
      fc.property(anyPrompt, anyPrompt, (prompt, other) => {
        const first = JSON.stringify(generateConnector(prompt));
        generateConnector(other);
        expect(JSON.stringify(generateConnector(prompt))).toBe(first);
      }),
      { numRuns: 400 },
    );
  });

  it('answers every prompt holding a word with a scaffold whose YAML manifest parses back to the spec, and refuses only the others, naming body/prompt', () => {
    let scaffolds = 0;
    fc.assert(
      fc.property(anyPrompt, (prompt) => {
        const r = generateConnector(prompt);
        // The oracle, independent of the generator: a prompt is refused only when it holds no word of
        // two or more characters starting with a letter (the prompts here are under the length limit).
        expect(r.ok, JSON.stringify(prompt)).toBe(/[A-Za-z][A-Za-z0-9]/.test(prompt));
        if (!r.ok) {
          expect(r.message).toMatch(/^body\/prompt /);
          return;
        }
        scaffolds++;
        const manifest = parse(r.value.manifest) as { kind: string; metadata: { id: string }; spec: { actions: unknown; variables: unknown } };
        expect(manifest.kind).toBe('Connector');
        expect(manifest.metadata.id).toBe(r.value.spec.id);
        expect(manifest.spec.actions).toEqual(r.value.spec.actions);
        expect(manifest.spec.variables).toEqual(r.value.spec.variables);
        expect(r.value.spec.id).toMatch(/^[a-z][a-z0-9-]{0,39}$/);
        expect(r.value.spec.title).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
        expect((r.value.spec.auth as { header: unknown }).header).toMatch(/^[a-z][a-z-]*$/);
        expect((r.value.spec.verify as { path: unknown }).path).toMatch(/^\//);
        expect(r.value.spec.baseUrl === null || /^https?:\/\//.test(r.value.spec.baseUrl as string)).toBe(true);
        for (const a of r.value.spec.actions as { name: string }[]) expect(a.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      }),
      { numRuns: 400 },
    );
    // Not vacuous: the structured third of the prompts nearly always holds a word.
    expect(scaffolds).toBeGreaterThan(100);
  });

  it('reads the service, its base URL, the credential header, and the actions with their fields from the prompt', () => {
    const r = generateConnector(
      'Create tickets with a title and a description, get a ticket and delete tickets in the Acme API at https://api.acme.io/v2 using an API key',
    );
    if (!r.ok) throw new Error(r.message);
    const { spec } = r.value;
    expect(spec).toMatchObject({
      id: 'acme',
      title: 'Acme',
      baseUrl: 'https://api.acme.io/v2',
      auth: { header: 'x-api-key', prefix: '' },
      file: 'services/connectors/providers/acme.ts',
      exportName: 'acmeConnector',
    });
    const actions = spec.actions as { name: string; method: string; path: string; effect: string; input: { required?: string[] } }[];
    expect(actions.map((a) => `${a.name} ${a.method} ${a.path} ${a.effect}`)).toEqual([
      'create_ticket POST /tickets write',
      'get_ticket GET /tickets/{id} read',
      'delete_ticket DELETE /tickets/{id} write',
    ]);
    expect(actions[0]!.input.required).toEqual(['title', 'description']);
  });

  it('knows common services by name: their base URL, header and a read-only check', () => {
    const r = generateConnector('list and search pages in notion');
    if (!r.ok) throw new Error(r.message);
    expect(r.value.spec).toMatchObject({
      id: 'notion',
      baseUrl: 'https://api.notion.com/v1',
      auth: { header: 'authorization', prefix: 'Bearer ' },
      verify: { path: '/users/me' },
    });
    expect((r.value.spec.actions as { name: string }[]).map((a) => a.name)).toEqual(['list_pages', 'search_pages']);
  });

  it('refuses an empty or wordless prompt with a message naming body/prompt', () => {
    for (const prompt of ['', '   ', '!!! ??? 123', '\u00e9\u00e8']) {
      const r = generateConnector(prompt);
      expect(r.ok, prompt).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/^body\/prompt /);
    }
  });

  it('puts prompt text into the source only as JSON string literals or [a-z0-9_] identifiers', () => {
    const r = generateConnector('Create a thing with */ and `${process.exit()}` in the Evil"); API at https://x.example.com/"+/');
    if (!r.ok) throw new Error(r.message);
    expect(r.value.typescript).not.toContain('process.exit');
    expect(r.value.typescript).not.toMatch(/Evil"\)/);
  });
});
