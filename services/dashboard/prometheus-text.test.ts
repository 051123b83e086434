import { describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { sumSamples } from './prometheus-text.ts';

describe('reading one metric from a Prometheus text exposition', () => {
  it('sums the samples whose labels match, from what prom-client writes', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'http_requests_total', help: 'h', labelNames: ['service', 'status'] as const, registers: [registry] });
    c.inc({ service: 'token', status: '404' }, 3);
    c.inc({ service: 'token', status: '503' }, 2);
    c.inc({ service: 'trust', status: '400' }, 5);
    c.inc({ service: 'token', status: '200' }, 7);
    const text = await registry.metrics();
    const token4xx = sumSamples(text, 'http_requests_total', (l) => l.service === 'token' && l.status!.startsWith('4'));
    expect(token4xx).toBe(3);
    expect(sumSamples(text, 'http_requests_total')).toBe(17);
  });

  it('tells an absent metric from a zero, and does not take a longer name for the one asked', () => {
    const text = '# HELP x_total_other h\nx_total_other 4\nx_total{a="q\\"uote"} 0\n';
    expect(sumSamples(text, 'x_total')).toBe(0);
    expect(sumSamples(text, 'x_total', (l) => l.a === 'q"uote')).toBe(0);
    expect(sumSamples(text, 'y_total')).toBeUndefined();
  });
});
