/**
 * Which redirect URIs a client may register (RFC 9700 §2.1, RFC 8252 §7.3): https anywhere, or http
 * on a loopback address (a native app's local listener; any port at use time, §7.3). No fragment, no
 * credentials in the URL; custom schemes are not accepted (a desktop MCP client uses loopback).
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not carry a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

export function isLoopback(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === '[::1]' || hostname === 'localhost';
}

/**
 * Is the redirect URI of an authorization request one the client registered (RFC 9700 §4.1.3: exact
 * string comparison)? The one allowance is RFC 8252 §7.3's: a loopback URI matches with any port,
 * since a native app listens on whichever port is free when it asks.
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !isLoopback(url.hostname) || redirectUriProblem(presented) !== undefined) return false;
  return registered.some((r) => {
    const reg = new URL(r);
    return reg.protocol === 'http:' && reg.hostname === url.hostname && reg.pathname === url.pathname && reg.search === url.search;
  });
}
