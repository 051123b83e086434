import { For } from 'solid-js';
import { RelativeTime } from '../../time';
import type { AuditEntry } from '../audit/types';

/** The gateway's audit entries for refusals and holds name the rule: "refused by rule 1 ("x") of the gateway's policy: …". */
const GATEWAY_RESOURCE = 'mcp tools/call ';
export const isPolicyRefusal = (e: AuditEntry) => e.result === 'deny' && e.resource.startsWith(GATEWAY_RESOURCE) && /\brule \d+/.test(e.reason);

/** Gateway calls the policy refused or held, from the audit trail: the rule and its reason, as the agent was told. */
export function Refusals(props: { entries: readonly AuditEntry[] }) {
  return (
    <table data-testid="policy-refusals">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Caller</th>
          <th scope="col">Call</th>
          <th scope="col">Rule and reason</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.entries}
          fallback={
            <tr>
              <td colspan="4">No call refused or held by the policy among the latest denials.</td>
            </tr>
          }
        >
          {(e) => (
            <tr data-audit={e.id}>
              <td>
                <RelativeTime iso={e.timestamp} />
              </td>
              <td>{e.subject}</td>
              <td>
                <code>{e.resource.slice(GATEWAY_RESOURCE.length)}</code>
              </td>
              <td data-field="reason">{e.reason}</td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}
