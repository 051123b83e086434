import { createSignal } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { Loaded } from '../Loaded';
import { Served } from '../Served';
import { Clients } from './Clients';
import { Grants } from './Grants';
import { Issuers } from './Issuers';
import { CLIENT_ADMIN_SCOPE, OAUTH_READ_SCOPE, type GrantRow, type OAuthClient, type TrustedIssuer } from './types';
import './oauth.css';

/** Rows of the latest grants shown. */
const GRANTS = 50;

/**
 * `#/oauth`: the suite's OAuth 2.1 front door (issue 32, docs/OAUTH.md): the registered clients (an
 * admin deletes them), the issuers whose tokens it exchanges, and the token endpoint's latest grants
 * and refusals. Issuers and grants are shown only where the suite serves their routes.
 */
export function OAuth() {
  const [clients, reloadClients] = createRead(token, () => apiOf<{ clients: OAuthClient[] }>('token', '/oauth/clients?limit=200'), { everyMs: 30_000 });
  const [issuers] = createRead(token, () => apiOf<{ issuers: TrustedIssuer[] }>('token', '/oauth/issuers'), { everyMs: 30_000 });
  const [grants] = createRead(token, () => apiOf<{ grants: GrantRow[] }>('token', `/oauth/grants?limit=${GRANTS}`), { everyMs: 10_000 });
  const [said, setSaid] = createSignal('');
  return (
    <section class="oauth" aria-labelledby="oauth-title">
      <h1 id="oauth-title">OAuth</h1>
      <p>
        How agents and MCP clients get the suite's capability tokens through OAuth 2.1 (docs/OAUTH.md): registered clients, trusted issuers for token exchange,
        and the token endpoint's latest answers. Every grant and refusal is also on the audit trail.
      </p>
      <p role="status" class="ok" data-testid="oauth-said">
        {said()}
      </p>
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">Clients</h2>
        <Loaded result={clients()} what={`the registered clients (scope ${CLIENT_ADMIN_SCOPE})`}>
          {(v) => (
            <Clients
              clients={v.clients}
              onDeleted={(text) => {
                setSaid(text);
                reloadClients();
              }}
            />
          )}
        </Loaded>
      </section>
      <Served result={issuers()} id="issuers-title" title="Trusted issuers" what={`the trusted issuers (scope ${OAUTH_READ_SCOPE})`}>
        {(v) => <Issuers issuers={v.issuers} />}
      </Served>
      <Served result={grants()} id="grants-title" title="Recent grants" what={`the latest grants (scope ${OAUTH_READ_SCOPE})`}>
        {(v) => <Grants grants={v.grants} />}
      </Served>
    </section>
  );
}
