import { oauthError, parseScopeParam, scopeBeyond } from '../../../core/oauth/index.ts';
import { subjects } from '../../../bus/index.ts';
import { spendRefreshToken } from '../refresh.ts';
import type { GrantModule } from './types.ts';

/**
 * `refresh_token` (RFC 6749 §6, RFC 9700 §4.14.2): rotation on every use; a spent token presented
 * again revokes its family and every access token minted from it. Scope may narrow, never widen;
 * a DPoP-bound family stays bound to its key.
 */
export const refreshTokenGrant: GrantModule = {
  type: 'refresh_token',
  publicClients: true,
  async handle({ params, client, dpopJkt, deps }) {
    const presented = params.refresh_token;
    if (presented === undefined || presented === '' || presented.length > 512)
      return { ok: false, error: oauthError('invalid_request', 'refresh_token is required') };
    const use = await spendRefreshToken(deps.storage.pool, presented);
    if (use.kind === 'unknown') return { ok: false, error: oauthError('invalid_grant', 'unknown refresh token') };
    if (use.kind === 'dead') return { ok: false, error: oauthError('invalid_grant', use.reason) };
    if (use.kind === 'reused') {
      // Only the client it was issued to triggers the family's revocation; another client learns nothing.
      if (use.clientId !== client.clientId) return { ok: false, error: oauthError('invalid_grant', 'unknown refresh token') };
      // The family is already dead in the database; a failed access-token revocation is logged (they expire within their lifetime).
      for (const jti of use.accessJtis) {
        const revoked = await deps.bus.request(subjects.revocationRevoke, { jti, by: `oauth:refresh-reuse:${use.familyId}` });
        if (!revoked.ok) deps.logger.warn({ jti, error: revoked.error }, 'could not revoke an access token of a reused refresh family');
      }
      return { ok: false, error: oauthError('invalid_grant', 'refresh token reused: its whole family is revoked') };
    }
    const { state } = use;
    if (state.clientId !== client.clientId) return { ok: false, error: oauthError('invalid_grant', 'the refresh token was issued to another client') };
    if (state.jkt !== null && state.jkt !== dpopJkt) return { ok: false, error: oauthError('invalid_grant', 'the refresh token is bound to another DPoP key') };
    const parsed = parseScopeParam(params.scope);
    if (!parsed.ok) return { ok: false, error: oauthError('invalid_scope', parsed.problem) };
    const scope = parsed.scope.length > 0 ? parsed.scope : state.scope;
    const beyond = scopeBeyond(state.scope, scope);
    if (beyond !== undefined) return { ok: false, error: oauthError('invalid_scope', `scope "${beyond}" was not granted to this refresh token`) };
    const act = state.claims.act as Record<string, unknown> | undefined;
    return {
      ok: true,
      mint: {
        sub: state.sub,
        scope,
        lifetimeSeconds: state.lifetimeSeconds,
        ...(state.aud !== null ? { aud: state.aud } : {}),
        ...(state.tenantId !== null ? { tenantId: state.tenantId } : {}),
        ...(state.claims.prf === true ? { proven: true } : {}),
        ...(act !== undefined ? { act } : {}),
        refresh: { familyId: state.familyId },
      },
    };
  },
};
