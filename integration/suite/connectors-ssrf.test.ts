import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { ssrfCorpus, startCanary, type Canary } from '../../testing/ssrf.ts';
import { NATS_URL } from '../../testing/bus.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The connector actions under the SSRF guard (issue 16): URLs aimed at this machine, the metadata
 * service and private networks, in many spellings, sent through the http connector's `request` and
 * as the configured provider URLs of slack and webhook, on a suite in distributed mode (real NATS, so
 * the distributed default policy: nothing private). A canary on loopback counts the connections it
 * receives: 0. Redirects are tried on a suite whose policy allows only the redirector (127.0.0.2).
 */

let canary: Canary;
let P = 0;
let R = 0;

beforeAll(async () => {
  canary = await startCanary();
  P = canary.port;
  R = canary.redirectorPort;
});

afterAll(() => canary.close());

const corpus = ssrfCorpus;

async function actWith(t: TestSuite, token: string, id: string, action: string, body: unknown) {
  const res = await fetch(t.url('connector', `/connectors/${id}/actions/${action}`), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string }; output?: { status: number; body: string } } };
}

describe('connector actions under the distributed default', () => {
  let t: TestSuite;
  let token: string;
  beforeAll(async () => {
    t = await startTestSuite({
      SUITE_NATS_URL: NATS_URL,
      SUITE_BUS_NAMESPACE: `t${randomBytes(6).toString('hex')}`,
      CONNECTOR_SLACK_BOT_TOKEN: 'xoxb-canary-test',
      CONNECTOR_SLACK_API_URL: `http://127.0.0.1:${P}/api`,
      CONNECTOR_WEBHOOK_URL: `http://localhost:${P}/hooks`,
      CONNECTOR_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      CONNECTOR_WEBHOOK_HEALTH_URL: `http://[::ffff:127.0.0.1]:${P}/health`,
    });
    token = (await t.mint(['connector:execute', 'connector:read'])).token;
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('refuses every URL of the corpus and every configured loopback provider; the canary receives 0 connections', async () => {
    const before = canary.connections();
    const urls = corpus(P);
    expect(urls.length).toBeGreaterThanOrEqual(45);
    const statuses: Record<string, number> = {};
    for (const url of urls) {
      const r = await actWith(t, token, 'http', 'request', { method: 'GET', url });
      // 403 OUTBOUND_REFUSED from the guard, or 400 where the input schema already refuses the URL.
      expect([400, 403], `${url}: ${JSON.stringify(r.body)}`).toContain(r.status);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    const slack = await actWith(t, token, 'slack', 'post_message', { channel: 'C0SUITE01', text: 'x' });
    expect(slack.body.error?.code).toBe('OUTBOUND_REFUSED');
    expect(slack.body.error?.message).toMatch(/loopback/);
    const hook = await actWith(t, token, 'webhook', 'send', { type: 'x', data: {} });
    expect(hook.body.error?.code).toBe('OUTBOUND_REFUSED');
    // The webhook URL names localhost: the refusal must not say what it resolved to.
    expect(hook.body.error?.message).not.toMatch(/127\.0\.0\.1|::1/);
    const verify = await fetch(t.url('connector', '/connectors/webhook/verify'), { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(verify.status).toBe(503);
    expect(canary.connections() - before).toBe(0);
    expect(statuses[403]).toBeGreaterThan(30);
  });
});

describe('connector actions and redirects', () => {
  let t: TestSuite;
  let token: string;
  beforeAll(async () => {
    t = await startTestSuite({ SUITE_OUTBOUND_ALLOW: '127.0.0.2/32' });
    token = (await t.mint(['connector:execute'])).token;
  }, machineTimeout(60_000));
  afterAll(() => t?.stop());

  it('follows no redirect from an allowed host to a refused address: the canary receives 0 connections', async () => {
    const before = canary.connections();
    const targets = [
      'http://127.0.0.1:$P/',
      'http://localhost:$P/',
      'http://2130706433:$P/',
      'http://[::1]:$P/',
      'http://[::ffff:127.0.0.1]:$P/',
      'http://169.254.169.254/',
      'file:///etc/passwd',
    ];
    for (const to of targets) {
      const r = await actWith(t, token, 'http', 'request', { method: 'GET', url: `http://127.0.0.2:${R}/?to=${encodeURIComponent(to)}` });
      expect(r.status, `${to}: ${JSON.stringify(r.body)}`).not.toBe(200);
    }
    expect(canary.connections() - before).toBe(0);
  });

  it("reaches the allowed redirector itself, so the refusals above are the guard's and not a broken setup", async () => {
    const r = await actWith(t, token, 'http', 'request', { method: 'GET', url: `http://127.0.0.2:${R}/?to=` });
    expect(r.status).toBe(200);
    expect(r.body.output?.status).toBe(302);
  });
});

describe('the canary', () => {
  it('counts a connection made to it, so 0 above means none was made', async () => {
    const before = canary.connections();
    expect(await (await fetch(`http://127.0.0.1:${P}/`)).text()).toBe('canary');
    expect(canary.connections() - before).toBe(1);
  });
});
