import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The consent page (authorization code and device grants), rendered as a whole HTML document with
 * no script and no inline style, so its Content-Security-Policy can be `default-src 'none'`. Served
 * by the suite on the token listener, independent of the dashboard's session.
 */

/** Headers every consent response carries: it cannot be framed (clickjacking), cached or leak its URL. */
export const CONSENT_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze(consentHeaders());

/**
 * The consent headers for one page. Browsers apply `form-action` to the redirect that answers the
 * form too, so the page whose Approve redirects to a client names that client's origin there (and
 * no other); every other page allows its own origin only.
 */
export function consentHeaders(redirectTo?: string): Record<string, string> {
  let origin = '';
  if (redirectTo !== undefined) {
    try {
      origin = ` ${new URL(redirectTo).origin}`;
    } catch {
      origin = '';
    }
  }
  return {
    'content-type': 'text/html; charset=utf-8',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; form-action 'self'${origin}; frame-ancestors 'none'; base-uri 'none'`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * CSRF: the form carries an HMAC of the pending request's id under a server secret, checked on
 * submit (constant time). Bound to one request, so a token from another consent is worthless.
 */
export const csrfToken = (secret: Uint8Array, requestId: string): string => createHmac('sha256', secret).update(`consent:${requestId}`).digest('base64url');

export function csrfMatches(secret: Uint8Array, requestId: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(csrfToken(secret, requestId));
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface ConsentView {
  readonly action: string;
  readonly requestId: string;
  readonly csrf: string;
  readonly clientName: string;
  readonly scopes: readonly string[];
  readonly resource?: string;
  readonly maxLifetimeSeconds: number;
  readonly error?: string;
}

/** Lifetimes offered (seconds), never above what the request may have. */
const LIFETIMES = [300, 900, 3600, 8 * 3600, 86_400];
const lifetimeLabel = (s: number): string => (s % 3600 === 0 ? `${s / 3600} hour${s === 3600 ? '' : 's'}` : `${Math.round(s / 60)} minutes`);

export function renderConsentPage(view: ConsentView): string {
  const lifetimes = [...new Set([...LIFETIMES.filter((s) => s < view.maxLifetimeSeconds), view.maxLifetimeSeconds])];
  const scopeBoxes = view.scopes
    .map(
      (s, i) =>
        `<li><input type="checkbox" id="scope-${i}" name="scope" value="${escapeHtml(s)}" checked><label for="scope-${i}">${escapeHtml(s)}</label></li>`,
    )
    .join('');
  const options = lifetimes.map((s) => `<option value="${s}"${s === view.maxLifetimeSeconds ? ' selected' : ''}>${lifetimeLabel(s)}</option>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorize ${escapeHtml(view.clientName)}</title></head>
<body><main>
<h1>Authorize ${escapeHtml(view.clientName)}</h1>
${view.error === undefined ? '' : `<p role="alert">${escapeHtml(view.error)}</p>`}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<p><label for="admin-key">Admin key</label> <input type="password" id="admin-key" name="admin_key" autocomplete="off"></p>
<p><label for="consent-token">or a token holding oauth:consent</label> <input type="password" id="consent-token" name="consent_token" autocomplete="off"></p>
<fieldset><legend>Scopes requested</legend><ul>${scopeBoxes}</ul></fieldset>
${view.resource === undefined ? '' : `<p>Resource: <code>${escapeHtml(view.resource)}</code></p>`}
<p><label for="lifetime">Token lifetime</label> <select id="lifetime" name="lifetime">${options}</select></p>
<p><button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form>
</main></body></html>`;
}

const page = (title: string, inner: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${inner}
</main></body></html>`;

/** The device grant's first page (RFC 8628 §3.3): a person types the code the device shows. */
export function renderUserCodePage(view: { readonly action: string; readonly error?: string; readonly userCode?: string }): string {
  return page(
    'Connect a device',
    `${view.error === undefined ? '' : `<p role="alert">${escapeHtml(view.error)}</p>`}
<form method="get" action="${escapeHtml(view.action)}">
<p><label for="user-code">User code</label> <input type="text" id="user-code" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${escapeHtml(view.userCode ?? '')}"></p>
<p><button type="submit">Continue</button></p>
</form>`,
  );
}

/** What the person sees once decided, or when the request cannot be decided any more. */
export function renderNoticePage(title: string, message: string): string {
  return page(title, `<p>${escapeHtml(message)}</p>`);
}

/**
 * What a person's submission may give: only scopes that were requested (unticking narrows; a scope
 * added to the form by hand is refused) and a lifetime no longer than offered.
 */
export function narrowedConsent(
  requested: readonly string[],
  ticked: readonly string[],
  maxLifetimeSeconds: number,
  lifetime: string | undefined,
): { ok: true; scope: string[]; lifetimeSeconds: number } | { ok: false; problem: string } {
  const extra = ticked.find((s) => !requested.includes(s));
  if (extra !== undefined) return { ok: false, problem: `scope ${extra} was not requested` };
  if (ticked.length === 0) return { ok: false, problem: 'no scope approved' };
  const seconds = lifetime === undefined ? maxLifetimeSeconds : Number(lifetime);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > maxLifetimeSeconds) return { ok: false, problem: 'lifetime above what was requested' };
  return { ok: true, scope: [...new Set(ticked)], lifetimeSeconds: seconds };
}
