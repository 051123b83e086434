import { oauthError, type OAuthError } from '../../../core/oauth/index.ts';

/**
 * RFC 8707 §2: `resource` is an absolute URI without a fragment; it becomes the token's `aud`. One
 * resource per token (the suite's `aud` is one string): several is `invalid_target`.
 */
export function resourceOf(params: Readonly<Record<string, string>>): { ok: true; aud: string | undefined } | { ok: false; error: OAuthError } {
  const value = params.resource;
  if (value === undefined) return { ok: true, aud: undefined };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, error: oauthError('invalid_target', 'resource must be an absolute URI') };
  }
  if (url.hash !== '' || value.includes('#') || value.length > 256)
    return { ok: false, error: oauthError('invalid_target', 'resource must have no fragment and at most 256 characters') };
  return { ok: true, aud: value };
}
