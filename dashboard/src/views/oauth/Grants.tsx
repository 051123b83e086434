import { For } from 'solid-js';
import { RelativeTime } from '../../time';
import { grantName, scopeText, type GrantRow } from './types';

/** The token endpoint's latest answers, newest first: granted, or refused with the RFC 6749 error. */
export function Grants(props: { grants: readonly GrantRow[] }) {
  return (
    <table data-testid="oauth-grants">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Grant</th>
          <th scope="col">Client</th>
          <th scope="col">Subject</th>
          <th scope="col">Scope</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.grants}
          fallback={
            <tr>
              <td colspan="6">No grant asked for yet.</td>
            </tr>
          }
        >
          {(g) => (
            <tr data-grant-type={g.grantType} data-outcome={g.outcome}>
              <td>
                <RelativeTime iso={g.at} />
              </td>
              <td>{grantName(g.grantType)}</td>
              <td>
                <code>{g.clientId ?? '—'}</code>
              </td>
              <td>{g.sub ?? '—'}</td>
              <td>
                <code>{scopeText(g.scope)}</code>
              </td>
              <td class={g.outcome === 'granted' ? 'ok' : 'bad'}>
                {g.outcome}
                {g.error !== undefined ? `: ${g.error}` : ''}
              </td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}
