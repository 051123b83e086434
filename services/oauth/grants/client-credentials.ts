import { oauthError, parseScopeParam, scopeBeyond } from '../../../core/oauth/index.ts';
import type { GrantModule } from './types.ts';
import { resourceOf } from './resource.ts';

/** How long a client-credentials token lives: short, since the client can always ask again (RFC 9700 §2.2.2). */
export const CLIENT_CREDENTIALS_LIFETIME_SECONDS = 3600;

/**
 * `client_credentials` (RFC 6749 §4.4): a confidential client acts as itself. The token's subject is
 * the client id; its scope is what was asked, within the registered ceiling (no scope asked: the whole
 * ceiling, §3.3's documented default); `resource` (RFC 8707) becomes its audience. A client whose
 * private_key_jwt key is an enrolled identity's acts as that identity, with the proof claim `prf`
 * (the assertion proved the key, as `POST /issue`'s signed nonce does; docs/OAUTH.md): the token is the
 * identity's, so suspending the identity revokes it.
 */
export const clientCredentialsGrant: GrantModule = {
  type: 'client_credentials',
  publicClients: false,
  async handle({ params, client, identity }) {
    const parsed = parseScopeParam(params.scope);
    if (!parsed.ok) return { ok: false, error: oauthError('invalid_scope', parsed.problem) };
    const scope = parsed.scope.length > 0 ? parsed.scope : client.scope;
    if (scope.length === 0) return { ok: false, error: oauthError('invalid_scope', 'the client registered no scope, and none was asked') };
    const beyond = scopeBeyond(client.scope, scope);
    if (beyond !== undefined) return { ok: false, error: oauthError('invalid_scope', `scope "${beyond}" is beyond what this client was registered for`) };
    const resource = resourceOf(params);
    if (!resource.ok) return { ok: false, error: resource.error };
    return {
      ok: true,
      mint: {
        sub: identity ?? client.clientId,
        ...(identity !== undefined ? { proven: true } : {}),
        scope,
        lifetimeSeconds: CLIENT_CREDENTIALS_LIFETIME_SECONDS,
        ...(resource.aud !== undefined ? { aud: resource.aud } : {}),
        ...(client.tenantId !== null ? { tenantId: client.tenantId } : {}),
      },
    };
  },
};
