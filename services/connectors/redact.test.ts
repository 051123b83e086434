import { describe, expect, it } from 'vitest';
import { BUILT_IN_CONNECTORS } from './providers/index.ts';
import { redactor } from './redact.ts';

describe('redactor', () => {
  it("removes every configured secret and a postgres URL's password from a text, and leaves the rest", () => {
    const redact = redactor(BUILT_IN_CONNECTORS, {
      CONNECTOR_SLACK_BOT_TOKEN: 'xoxb-123-secret',
      CONNECTOR_POSTGRES_URL: 'postgres://reader:p%40ss-word@db.internal:5432/app',
      CONNECTOR_SLACK_API_URL: 'https://slack.com/api',
    });
    const text = 'token xoxb-123-secret failed; url postgres://reader:p%40ss-word@db.internal:5432/app; password p@ss-word; base https://slack.com/api';
    const out = redact(text);
    expect(out).not.toContain('xoxb-123-secret');
    expect(out).not.toContain('p@ss-word');
    expect(out).not.toContain('p%40ss-word');
    expect(out).toContain('https://slack.com/api');
  });
});
