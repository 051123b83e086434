import { For, Show } from 'solid-js';
import { RelativeTime } from '../../time';
import type { PolicyView } from './types';

/** A budget rule's effect reads `budget` (it counts calls rather than deciding them). */
const EFFECT_CLASS: Record<string, string> = { allow: 'ok', deny: 'bad', approve: 'warn' };

/** The policy file's rules in the order they are tried, each with how often it decided a call since the file was loaded. */
export function Rules(props: { policy: PolicyView }) {
  return (
    <>
      <p>
        Version <code data-testid="policy-version">{props.policy.version}</code>, loaded <RelativeTime iso={props.policy.loadedAt} />. The first rule that
        matches a call decides it.
      </p>
      <table data-testid="policy-rules">
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Server</th>
            <th scope="col">Tool</th>
            <th scope="col">When</th>
            <th scope="col">Effect</th>
            <th scope="col">Reason</th>
            <th scope="col">Hits</th>
          </tr>
        </thead>
        <tbody>
          <For
            each={props.policy.rules}
            fallback={
              <tr>
                <td colspan="7">The policy file has no rule: every call the token allows runs.</td>
              </tr>
            }
          >
            {(r) => (
              <tr data-rule={r.index}>
                <th scope="row">{r.index}</th>
                <td>
                  <code>{r.server}</code>
                </td>
                <td>
                  <code>{r.tool}</code>
                </td>
                <td>
                  <Show when={r.when} fallback="always">
                    {(w) => <code>{w()}</code>}
                  </Show>
                </td>
                <td class={EFFECT_CLASS[r.effect] ?? ''}>{r.effect}</td>
                <td>{r.reason ?? '—'}</td>
                <td class="number">{r.hits}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </>
  );
}
