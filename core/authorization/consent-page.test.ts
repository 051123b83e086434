import { describe, expect, it } from 'vitest';
import { CONSENT_PAGE_HEADERS, csrfMatches, csrfToken, narrowedConsent, renderConsentPage } from './index.ts';

const secret = new Uint8Array(32).fill(7);
const view = {
  action: '/oauth/consent',
  requestId: 'req-1',
  csrf: csrfToken(secret, 'req-1'),
  clientName: 'Desk <App>',
  scopes: ['tool:search', 'tool:invoice:read'],
  resource: 'https://suite.example/mcp',
  maxLifetimeSeconds: 3600,
};

describe('the consent page', () => {
  it('shows the client, one labelled checkbox per scope, the resource and Approve and Deny', () => {
    const html = renderConsentPage(view);
    expect(html).toContain('Authorize Desk &lt;App&gt;');
    expect(html).not.toContain('<App>');
    expect(html).toContain('<input type="checkbox" id="scope-0" name="scope" value="tool:search" checked><label for="scope-0">tool:search</label>');
    expect(html).toContain('https://suite.example/mcp');
    expect(html).toContain('<label for="admin-key">Admin key</label>');
    expect(html).toMatch(/value="approve">Approve<\/button>.*value="deny">Deny<\/button>/);
  });

  it("offers only lifetimes up to the request's", () => {
    const html = renderConsentPage({ ...view, maxLifetimeSeconds: 900 });
    expect(html).toContain('<option value="900" selected>');
    expect(html).toContain('<option value="300">');
    expect(html).not.toContain('value="3600"');
  });

  it('is served unframeable and uncached, with no script allowed', () => {
    expect(CONSENT_PAGE_HEADERS['x-frame-options']).toBe('DENY');
    expect(CONSENT_PAGE_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(CONSENT_PAGE_HEADERS['content-security-policy']).toContain("default-src 'none'");
    expect(CONSENT_PAGE_HEADERS['cache-control']).toBe('no-store');
  });

  it('accepts its own CSRF token and refuses one for another request, a changed one or none', () => {
    expect(csrfMatches(secret, 'req-1', view.csrf)).toBe(true);
    expect(csrfMatches(secret, 'req-2', view.csrf)).toBe(false);
    expect(csrfMatches(secret, 'req-1', `${view.csrf.slice(0, -1)}A`)).toBe(view.csrf.endsWith('A'));
    expect(csrfMatches(secret, 'req-1', undefined)).toBe(false);
    expect(csrfMatches(new Uint8Array(32), 'req-1', view.csrf)).toBe(false);
  });
});

describe('consent only narrows', () => {
  it('gives the ticked scopes and a shorter lifetime', () => {
    expect(narrowedConsent(view.scopes, ['tool:search'], 3600, '900')).toEqual({ ok: true, scope: ['tool:search'], lifetimeSeconds: 900 });
  });

  it('refuses a scope added to the form, no scope, and a longer lifetime', () => {
    expect(narrowedConsent(view.scopes, ['tool:search', 'tool:*'], 3600, '900')).toEqual({ ok: false, problem: 'scope tool:* was not requested' });
    expect(narrowedConsent(view.scopes, [], 3600, '900').ok).toBe(false);
    expect(narrowedConsent(view.scopes, ['tool:search'], 3600, '7200').ok).toBe(false);
    expect(narrowedConsent(view.scopes, ['tool:search'], 3600, 'soon').ok).toBe(false);
  });
});
