import { For } from 'solid-js';
import type { TrustedIssuer } from './types';

const KEYS_FROM: Record<string, string> = { inline: 'keys given in the file', uri: 'its jwksUri (fetched, cached, refetched on an unknown key id)' };

/** Whose tokens the suite trades for its own (token exchange): each issuer, its keys' source, and which subjects get what. */
export function Issuers(props: { issuers: readonly TrustedIssuer[] }) {
  return (
    <table data-testid="oauth-issuers">
      <thead>
        <tr>
          <th scope="col">Issuer</th>
          <th scope="col">Audience</th>
          <th scope="col">Keys from</th>
          <th scope="col">Subjects: scope, longest lifetime</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.issuers}
          fallback={
            <tr>
              <td colspan="4">No trusted issuer: SUITE_OAUTH_TRUSTED_ISSUERS is not set (docs/OAUTH.md).</td>
            </tr>
          }
        >
          {(i) => (
            <tr data-issuer={i.issuer}>
              <th scope="row">
                <code>{i.issuer}</code>
              </th>
              <td>
                <code>{i.audience}</code>
              </td>
              <td>{KEYS_FROM[i.jwksSource] ?? i.jwksSource}</td>
              <td>
                <ul class="subjects">
                  <For each={i.subjects}>
                    {(s) => (
                      <li>
                        <code>{s.match}</code>: <code>{s.scope.join(' ') || '—'}</code>, at most {s.maxLifetime}
                      </li>
                    )}
                  </For>
                </ul>
              </td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}
