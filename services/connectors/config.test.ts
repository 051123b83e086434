import { describe, expect, it } from 'vitest';
import { ConfigError, readSection } from '../../config/index.ts';
import { connectorsConfig } from './config.ts';

describe('connector variables', () => {
  it('keeps the CONNECTOR_* variables that are set, and nothing for the ones that are not', () => {
    const config = readSection(connectorsConfig, { CONNECTOR_SLACK_BOT_TOKEN: 'xoxb-1', CONNECTOR_POSTGRES_ROW_LIMIT: '50', CONNECTOR_GITHUB_TOKEN: '  ' });
    expect(config.connectors).toEqual({ CONNECTOR_SLACK_BOT_TOKEN: 'xoxb-1', CONNECTOR_POSTGRES_ROW_LIMIT: '50' });
    expect(Object.isFrozen(config.connectors)).toBe(true);
  });

  it('stops the start naming the variable for a bad value, without showing the value', () => {
    const cases: Array<[string, string]> = [
      ['CONNECTOR_WEBHOOK_SECRET', 'not-a-whsec-secret-value'],
      ['CONNECTOR_SLACK_API_URL', 'file:///etc/passwd'],
      ['CONNECTOR_GITHUB_API_URL', 'https://user:sekrit-pass@api.github.com'],
      ['CONNECTOR_POSTGRES_URL', 'mysql://sekrit@db'],
      ['CONNECTOR_POSTGRES_STATEMENT_TIMEOUT_MS', '999999999'],
      ['CONNECTOR_SLACK_BOT_TOKEN', 'xoxb sekrit with spaces'],
    ];
    for (const [name, value] of cases) {
      let error: unknown;
      try {
        readSection(connectorsConfig, { [name]: value });
      } catch (err) {
        error = err;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(name);
      expect((error as Error).message).not.toMatch(/sekrit|not-a-whsec/);
    }
  });
});
