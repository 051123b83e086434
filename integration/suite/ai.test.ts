import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/index.ts';
import { loadConfig } from '../../services/index.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

let plain: TestSuite;
let configured: TestSuite;
const OPENAI_KEY = 'sk-test-0123456789abcdefSECRET';
const ANTHROPIC_KEY = 'sk-ant-test-9876543210SECRET';
beforeAll(async () => {
  plain = await startTestSuite({});
  configured = await startTestSuite({ OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY, OLLAMA_HOST: '10.1.2.3:11434' });
}, machineTimeout(60_000));
afterAll(async () => {
  await plain?.stop();
  await configured?.stop();
});

async function generate(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; body: any }> {
  const res = await fetch(plain.url('token', '/ai/policy/generate'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

describe('POST /ai/policy/generate', () => {
  const description =
    'The agent can read the CRM and update calendar events. It may send no more than 50 emails per day, ' +
    'only during business hours. Deleting tickets requires manager approval.';

  it('answers without a credential: scopes, a governance policy, what matched, what did not, and an explanation', async () => {
    const r = await generate({ description, subject: 'agent-7' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['scopes', 'policy', 'matched', 'unmatched', 'warnings', 'explanation']);
    expect(r.body.scopes).toEqual(['calendar:write', 'crm:read', 'email:send', 'tickets:delete']);
    expect(r.body.policy).toMatchObject({ policyRef: 'generated/agent-7', subject: 'agent-7', generator: 'suite-policy-rules/1' });
    expect(r.body.policy.rules.map((x: { kind: string }) => x.kind)).toEqual(['rate-limit', 'time-window', 'approval']);
    expect(r.body.explanation).toMatch(/^Grants 4 scopes: calendar:write, crm:read, email:send, tickets:delete\./);
  });

  it('answers byte-identical bodies to the same request, with or without a credential', async () => {
    const a = await generate({ description });
    const b = await generate({ description });
    const c = await generate({ description }, { 'x-suite-admin-key': plain.adminKey });
    expect(b.text).toBe(a.text);
    expect(c.text).toBe(a.text);
  });

  it('refuses bad bodies with 400 INVALID_REQUEST naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /description/],
      [{ description: '' }, /description/],
      [{ description: '   \n ' }, /body\/description must contain some words/],
      [{ description: 'x'.repeat(4001) }, /description/],
      [{ description: 'read tickets', subject: '' }, /subject/],
      [{ description: 'read tickets', model: 'gpt' }, /model/],
      [{ description: 42 }, /description/],
    ];
    for (const [body, message] of cases) {
      const r = await generate(body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
      expect(r.body.error.message).toMatch(message);
    }
  });
});

describe('GET /ai/providers', () => {
  it('lists no provider when none is configured', async () => {
    const res = await fetch(plain.url('token', '/ai/providers'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ providers: [] });
  });

  it('lists each configured provider and the variable that configured it, never a key or an address', async () => {
    const res = await fetch(configured.url('token', '/ai/providers'));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toEqual({
      providers: [
        { id: 'anthropic', name: 'Anthropic', kind: 'hosted', configured: true, configuredBy: 'ANTHROPIC_API_KEY' },
        { id: 'ollama', name: 'Ollama', kind: 'local', configured: true, configuredBy: 'OLLAMA_HOST' },
        { id: 'openai', name: 'OpenAI', kind: 'hosted', configured: true, configuredBy: 'OPENAI_API_KEY' },
      ],
    });
    for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, 'SECRET', '10.1.2.3', '11434']) expect(text).not.toContain(secret);
  });

  it('keeps no key in the configuration, only whether one is set', () => {
    expect(configured.config.llm).toEqual({ openai: true, anthropic: true, ollamaHost: 'http://10.1.2.3:11434' });
    expect(JSON.stringify(configured.config)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(configured.config)).not.toContain(ANTHROPIC_KEY);
  });
});

describe('OLLAMA_HOST', () => {
  const load = (value: string) => loadConfig({ OLLAMA_HOST: value }).llm.ollamaHost;

  it('reads host, host:port and http(s) URLs with the default ports Ollama uses', () => {
    expect(load('localhost')).toBe('http://localhost:11434');
    expect(load('127.0.0.1:8000')).toBe('http://127.0.0.1:8000');
    expect(load('http://ollama.internal')).toBe('http://ollama.internal:80');
    expect(load('https://ollama.example.com/')).toBe('https://ollama.example.com:443');
    expect(loadConfig({ OLLAMA_HOST: '  ' }).llm.ollamaHost).toBeUndefined();
  });

  it('refuses credentials in the address and other schemes, naming the variable', () => {
    for (const value of ['http://user:pass@ollama:11434', 'ftp://ollama', 'http://']) {
      expect(() => load(value), value).toThrow(ConfigError);
      expect(() => load(value), value).toThrow(/^OLLAMA_HOST:/);
    }
  });
});
