import { createSignal, For, Show } from 'solid-js';
import { apiOf } from '../../api';
import { RelativeTime } from '../../time';
import { grantName, type OAuthClient } from './types';

const AUTH_TEXT: Record<OAuthClient['tokenEndpointAuthMethod'], string> = {
  client_secret_basic: 'secret (basic)',
  client_secret_post: 'secret (post)',
  private_key_jwt: 'private key JWT',
  none: 'public (none)',
};

/**
 * Registered clients, newest first, each deletable (`DELETE /oauth/clients/{id}`) after a second
 * press: its live tokens stay until they expire or are revoked, as the route says.
 */
export function Clients(props: { clients: readonly OAuthClient[]; onDeleted: (said: string) => void }) {
  return (
    <table data-testid="oauth-clients">
      <thead>
        <tr>
          <th scope="col">Client</th>
          <th scope="col">Authentication</th>
          <th scope="col">Grants</th>
          <th scope="col">Scope ceiling</th>
          <th scope="col">Redirect URIs</th>
          <th scope="col">Registered</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.clients}
          fallback={
            <tr>
              <td colspan="7">No client is registered.</td>
            </tr>
          }
        >
          {(c) => (
            <tr data-client={c.clientId}>
              <th scope="row">
                {c.clientName || <em class="none">no name</em>}
                <br />
                <code>{c.clientId}</code>
              </th>
              <td>{AUTH_TEXT[c.tokenEndpointAuthMethod] ?? c.tokenEndpointAuthMethod}</td>
              <td>{c.grantTypes.map(grantName).join(', ') || '—'}</td>
              <td>
                <code>{c.scope.join(' ') || '—'}</code>
              </td>
              <td>{c.redirectUris.join(' ') || '—'}</td>
              <td>
                <RelativeTime iso={c.createdAt} /> by {c.registeredBy}
                {c.tenantId !== null ? ` (tenant ${c.tenantId})` : ''}
              </td>
              <td>
                <DeleteClient client={c} onDeleted={props.onDeleted} />
              </td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}

function DeleteClient(props: { client: OAuthClient; onDeleted: (said: string) => void }) {
  const [asking, setAsking] = createSignal(false);
  const [refused, setRefused] = createSignal<string | null>(null);
  const name = () => props.client.clientName || props.client.clientId;
  const remove = async () => {
    const r = await apiOf<{ deleted: boolean; clientId: string }>('token', `/oauth/clients/${encodeURIComponent(props.client.clientId)}`, { method: 'DELETE' });
    setAsking(false);
    if (r.kind !== 'ok') return void setRefused(`Not deleted: ${r.message}`);
    props.onDeleted(
      r.value.deleted
        ? `Deleted client ${name()}: it can get no new token; tokens it holds stay until they expire or are revoked.`
        : `Client ${name()} was already gone.`,
    );
  };
  return (
    <>
      <Show
        when={asking()}
        fallback={
          <button type="button" aria-label={`Delete client ${name()}`} onClick={() => setAsking(true)}>
            Delete
          </button>
        }
      >
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete {name()} for good
        </button>{' '}
        <button type="button" onClick={() => setAsking(false)}>
          Keep
        </button>
      </Show>
      <Show when={refused()}>
        {(t) => (
          <p class="bad" role="alert">
            {t()}
          </p>
        )}
      </Show>
    </>
  );
}
