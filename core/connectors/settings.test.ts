import { describe, expect, it } from 'vitest';
import { GITHUB, HTTP, POSTGRES, WEBHOOK } from './catalogue.ts';
import { configurationState, settingProblem, settingsOf } from './settings.ts';
import type { ConnectorVariable } from './types.ts';

const variable = (kind: ConnectorVariable['kind'], extra: Partial<ConnectorVariable> = {}): ConnectorVariable => ({
  name: 'X',
  description: '',
  secret: false,
  required: false,
  kind,
  ...extra,
});

describe('settingProblem', () => {
  it('accepts good values of each kind and says what is wrong with bad ones, never quoting the value', () => {
    expect(settingProblem(variable('url'), 'https://slack.com/api')).toBeUndefined();
    expect(settingProblem(variable('url'), 'ftp://x')).toMatch(/http/);
    expect(settingProblem(variable('url'), 'https://user:hunter2@x.io')).toMatch(/credentials/);
    expect(settingProblem(variable('postgres-url'), 'postgres://u:p@h/db')).toBeUndefined();
    expect(settingProblem(variable('postgres-url'), 'mysql://h')).toMatch(/postgres/);
    expect(settingProblem(variable('integer', { min: 1, max: 10 }), '10')).toBeUndefined();
    expect(settingProblem(variable('integer', { min: 1, max: 10 }), '11')).toMatch(/between 1 and 10/);
    expect(settingProblem(variable('integer'), '1e3')).toMatch(/whole/);
    expect(settingProblem(variable('webhook-secret'), `whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBeUndefined();
    expect(settingProblem(variable('webhook-secret'), 'hunter2hunter2hunter2')).toMatch(/whsec_/);
    expect(settingProblem(variable('text'), 'xoxb-1 2')).toMatch(/printable/);
    for (const bad of ['ftp://hunter2', 'hunter2 x', 'mysql://hunter2']) {
      for (const kind of ['url', 'postgres-url', 'text', 'webhook-secret'] as const) expect(settingProblem(variable(kind), bad) ?? '').not.toContain('hunter2');
    }
  });
});

describe('configurationState', () => {
  it('is configured when every required variable is set, and names the missing ones otherwise', () => {
    expect(configurationState(GITHUB, new Set())).toMatchObject({ configured: false, missing: ['CONNECTOR_GITHUB_TOKEN'] });
    expect(configurationState(WEBHOOK, new Set(['CONNECTOR_WEBHOOK_URL']))).toMatchObject({ configured: false, missing: ['CONNECTOR_WEBHOOK_SECRET'] });
    expect(configurationState(HTTP, new Set())).toMatchObject({ configured: true, missing: [] });
    const state = configurationState(GITHUB, new Set(['CONNECTOR_GITHUB_TOKEN']));
    expect(state.configured).toBe(true);
    expect(state.variables).toEqual([
      expect.objectContaining({ name: 'CONNECTOR_GITHUB_TOKEN', secret: true, set: true }),
      expect.objectContaining({ name: 'CONNECTOR_GITHUB_API_URL', set: false, default: 'https://api.github.com' }),
    ]);
  });
});

describe('settingsOf', () => {
  it('gives a connector its values set and the defaults of the rest, and nothing of other connectors', () => {
    const settings = settingsOf(POSTGRES, { CONNECTOR_POSTGRES_URL: 'postgres://h/db', CONNECTOR_GITHUB_TOKEN: 'ghp_x' });
    expect(settings).toEqual({
      CONNECTOR_POSTGRES_URL: 'postgres://h/db',
      CONNECTOR_POSTGRES_ROW_LIMIT: '1000',
      CONNECTOR_POSTGRES_STATEMENT_TIMEOUT_MS: '5000',
    });
  });
});
