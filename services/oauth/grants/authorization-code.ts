import { verifierMatches } from '../../../core/authorization/index.ts';
import { oauthError } from '../../../core/oauth/index.ts';
import { subjects } from '../../../bus/index.ts';
import { recordIssued, spendCode } from '../authorizations.ts';
import { familyAccessJtis } from '../refresh.ts';
import type { GrantModule } from './types.ts';

/**
 * `authorization_code` (RFC 6749 §4.1.3, OAuth 2.1, RFC 9700 §4.5): the code a person's approval
 * produced, redeemed once, by the client it was issued to, with the redirect URI of its request and
 * the PKCE verifier of its S256 challenge. A code presented again revokes what it issued (the access
 * token and the refresh family). The token acts for the person who approved (`sub`), with the scope
 * and lifetime they chose, for the resource asked (RFC 8707 `aud`).
 */
export const authorizationCodeGrant: GrantModule = {
  type: 'authorization_code',
  publicClients: true,
  async handle({ params, client, now, deps }) {
    const code = params.code;
    if (code === undefined || code.length > 512) return { ok: false, error: oauthError('invalid_request', 'code is required') };
    if (params.redirect_uri === undefined) return { ok: false, error: oauthError('invalid_request', 'redirect_uri is required') };
    const redemption = await spendCode(deps.storage.pool, code, now, (a) => {
      if (a.kind !== 'code' || a.clientId !== client.clientId) return 'the code was issued to another client';
      if (a.redirectUri !== params.redirect_uri) return "redirect_uri differs from the authorization request's";
      if (!verifierMatches(params.code_verifier, a.codeChallenge ?? '')) return 'code_verifier does not match the code_challenge (PKCE)';
      if (params.resource !== undefined && params.resource !== a.resource) return "resource differs from the authorization request's";
      return undefined;
    });
    if (redemption.kind === 'unknown') return { ok: false, error: oauthError('invalid_grant', 'unknown authorization code') };
    if (redemption.kind === 'expired') return { ok: false, error: oauthError('invalid_grant', 'the authorization code has expired or was not approved') };
    if (redemption.kind === 'refused') return { ok: false, error: oauthError('invalid_grant', redemption.problem) };
    if (redemption.kind === 'reused') {
      if (redemption.clientId !== client.clientId) return { ok: false, error: oauthError('invalid_grant', 'unknown authorization code') };
      const jtis = new Set([
        ...(redemption.accessJti !== null ? [redemption.accessJti] : []),
        ...(redemption.familyId !== null ? await familyAccessJtis(deps.storage.pool, redemption.familyId) : []),
      ]);
      for (const jti of jtis) {
        const revoked = await deps.bus.request(subjects.revocationRevoke, { jti, by: 'oauth:code-reuse' });
        if (!revoked.ok) deps.logger.warn({ jti, error: revoked.error }, 'could not revoke a token issued from a reused authorization code');
      }
      return { ok: false, error: oauthError('invalid_grant', `authorization code reused: the ${jtis.size} token(s) issued from it are revoked`) };
    }
    const a = redemption.authorization;
    return {
      ok: true,
      note: `code approved by ${a.approvedBy}`,
      mint: {
        sub: a.approvedBy ?? client.clientId,
        scope: a.approvedScope ?? [],
        lifetimeSeconds: a.approvedLifetimeSeconds ?? 300,
        ...(a.resource !== null ? { aud: a.resource } : {}),
        ...(a.tenantId !== null ? { tenantId: a.tenantId } : {}),
        ...(client.grantTypes.includes('refresh_token') ? { refresh: { familyId: a.familyId } } : {}),
        recordIssued: (tx, jti) => recordIssued(tx, a.requestId, jti),
      },
    };
  },
};
